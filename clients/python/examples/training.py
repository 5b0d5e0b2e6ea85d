"""Training loop pushed to Pitwall: loss and learning rate per step, a checkpoint artifact every
`--ckpt-every` steps, and a run that ends `failed` with the exception when the loop raises.

    PITWALL_URL=http://pitwall:8080 PITWALL_TOKEN=pw_... python3 training.py --steps 2000
"""

import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pitwall import Pitwall  # noqa: E402 (the client sits one folder up)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--ckpt-every", type=int, default=500)
    parser.add_argument("--diverge-at", type=int, default=None, help="simulate a NaN loss and fail at this step")
    parser.add_argument("--key", default=None, help="run key (pass the same key to resume a run)")
    args = parser.parse_args()

    pw = Pitwall()
    with pw.run(kind="training", name="DFlash drafter bs16 (example)", key=args.key, total=args.steps, unit="steps",
                config={"blockSize": 16, "lr": 3e-4, "optimizer": "adamw"}) as run:
        for step in range(1, args.steps + 1):
            lr = 3e-4 * min(1.0, step / 100) * 0.5 * (1 + math.cos(math.pi * step / args.steps))
            loss = 2.5 * math.exp(-step / 800) + 0.3 + random.uniform(-0.02, 0.02)
            if args.diverge_at is not None and step >= args.diverge_at:
                loss = float("nan")
            run.metrics(step, loss=loss, lr=lr)
            run.progress(step)
            if math.isnan(loss):
                raise FloatingPointError("loss is NaN at step {}".format(step))
            if step % args.ckpt_every == 0:
                uri = "s3://drafters/dflash-bs16/step-{}/model.safetensors".format(step)
                run.artifact(uri, kind="checkpoint", size_bytes=3_400_000_000, step=step)
                run.event("checkpoint step {} uploaded".format(step))


if __name__ == "__main__":
    main()
