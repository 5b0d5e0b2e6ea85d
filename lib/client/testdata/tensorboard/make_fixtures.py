"""Writes the TensorBoard event-file fixtures of lib/client/tf-events*.test.ts (see SOURCE.md).

Run once with tensorboardX installed: python3 make_fixtures.py OUTDIR
"""
import math
import struct
import sys

from tensorboardX import SummaryWriter
from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboardX.proto.tensor_pb2 import TensorProto
from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto

out = sys.argv[1]

# 1. tensorboardX's own scalars (Summary.Value.simple_value), a histogram and text (not scalars),
#    a NaN loss, two tags, one run folder.
w = SummaryWriter(logdir=f"{out}/logdir/drafter-a", filename_suffix=".fixture")
for step in range(0, 50):
    loss = float("nan") if step == 13 else 2.0 / (1 + step)
    w.add_scalar("train/loss", loss, global_step=step, walltime=1_796_000_000 + step)
    if step % 10 == 9:
        w.add_scalar("eval/tau", 3.0 + step / 10, global_step=step, walltime=1_796_000_000 + step)
        w.add_histogram("weights", [0.1, 0.2, 0.3, float(step)], global_step=step, walltime=1_796_000_000 + step)
        w.add_text("notes", f"step {step}", global_step=step, walltime=1_796_000_000 + step)
w.close()


def scalar_tensor(dtype, value, how):
    t = TensorProto(dtype=dtype, tensor_shape=TensorShapeProto())
    if how == "float_val":
        t.float_val.append(value)
    elif how == "double_val":
        t.double_val.append(value)
    elif how == "int_val":
        t.int_val.append(int(value))
    elif how == "int64_val":
        t.int64_val.append(int(value))
    elif how == "content_f32":
        t.tensor_content = struct.pack("<f", value)
    elif how == "content_f64":
        t.tensor_content = struct.pack("<d", value)
    return t


# 2. Tensor-valued scalar summaries, the way TF2's tf.summary.scalar / torch's newer writers
#    write them: Summary.Value.tensor (rank 0) with plugin "scalars" metadata on the first value of
#    each tag only; a large 64-bit step; a rank-1 tensor that is not a scalar (skipped).
w = SummaryWriter(logdir=f"{out}/logdir/nested/drafter-b", filename_suffix=".fixture")
fw = w._get_file_writer()
kinds = [
    ("lr", 1, "float_val"),        # DT_FLOAT
    ("acc", 2, "double_val"),      # DT_DOUBLE
    ("tokens", 3, "int_val"),      # DT_INT32
    ("seen", 9, "int64_val"),      # DT_INT64
    ("grad_norm", 1, "content_f32"),
    ("ppl", 2, "content_f64"),
]
for i, step in enumerate([0, 1, 2, 2**40 + 5]):
    values = []
    for tag, dtype, how in kinds:
        v = Summary.Value(tag=tag, tensor=scalar_tensor(dtype, (i + 1) * 1.5 if dtype in (1, 2) else (i + 1) * 100, how))
        if i == 0:
            v.metadata.CopyFrom(SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars")))
        values.append(v)
    vec = TensorProto(dtype=1, tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=2)]))
    vec.float_val.extend([1.0, 2.0])
    values.append(Summary.Value(tag="vector", tensor=vec))
    fw.add_summary(Summary(value=values), global_step=step, walltime=1_796_100_000 + i)
w.close()
print("ok")

# 3. TensorBoard's own framework-free writer (tensorboard.summary.Writer, tensorboard 2.21.0):
#    tensor-valued float32 scalars with plugin "scalars" metadata, the TF2 event format.
from tensorboard.summary import Writer as TbWriter  # noqa: E402

tw = TbWriter(f"{out}/logdir/tensorboard-native")
for step in range(10):
    tw.add_scalar("train/loss", 1.0 / (step + 1), step, wall_time=1_796_200_000 + step)
    if step % 3 == 0:
        tw.add_scalar("eval/tau", 4.0 + step * 0.25, step, wall_time=1_796_200_000 + step, description="acceptance length")
tw.close()
print("ok (tensorboard native)")
