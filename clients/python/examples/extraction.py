"""Extraction loop pushed to Pitwall: progress with S3 counters, events and a final artifact.

A stand-in for a hidden-state extraction job: each sample is "extracted" (~1.1 MB), "uploaded"
to S3 by a pool of at most 100 in-flight uploads, then deleted locally. Run it with
PITWALL_URL and PITWALL_TOKEN set:

    python3 extraction.py --samples 20000 --worker gpu0
"""

import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pitwall import Pitwall  # noqa: E402 (the client sits one folder up)

SAMPLE_BYTES = 1_100_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000, help="samples to process")
    parser.add_argument("--worker", default="gpu0", help="worker id (stable across restarts)")
    parser.add_argument("--key", default=None, help="run key (pass the same key to resume a run)")
    args = parser.parse_args()

    pw = Pitwall(worker_id=args.worker)
    with pw.run(kind="extraction", name="hidden states (example)", key=args.key, total=args.samples, unit="samples",
                config={"model": "Qwen3-27B", "layers": [16, 32, 48], "s3MaxInflight": 100}) as run:
        uploaded = deleted = 0
        for i in range(args.samples):
            # ... extract sample i and hand it to the upload pool ...
            inflight = min(100, i + 1 - uploaded)
            if inflight >= 100 or i == args.samples - 1:
                uploaded = i + 1  # the pool drained
                deleted = uploaded  # delete only what is safely uploaded
            run.progress(i + 1, counters={
                "s3.uploaded": uploaded,
                "s3.bytes": uploaded * SAMPLE_BYTES,
                "s3.inflight": i + 1 - uploaded,
                "local.deleted": deleted,
                "disk.freeBytes": shutil.disk_usage("/").free,
            })
            if (i + 1) % 10_000 == 0:
                run.event("{} samples extracted".format(i + 1))
        run.artifact("s3://hidden-states/example/manifest.json", kind="upload", size_bytes=uploaded * 64)
    print("run {} done; server answered for every frame: {}".format(run.key, pw.stats()["queued"] == 0))


if __name__ == "__main__":
    main()
