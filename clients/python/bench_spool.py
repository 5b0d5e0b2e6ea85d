"""Caller-side cost of ``run.metrics`` with 30 keys per step and the spool on (issue 24's target:
>= 20,000 calls/s). The server is unreachable on purpose: the spool absorbs everything and the
training loop must not notice. Prints calls/s and CPU microseconds per call (the calling thread's
CPU time, ``time.thread_time``), plus the spool's size on disk.

Run: ``python3 clients/python/bench_spool.py [--steps 200000] [--keys 30]``; prints one JSON line
last (for scripts/bench/python-spool.ts).
"""

import argparse
import json
import os
import shutil
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pitwall  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--keys", type=int, default=30)
    args = parser.parse_args()
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = tempfile.mkdtemp(prefix="pitwall-bench-spool-")
    try:
        import logging
        logging.getLogger("pitwall").setLevel(logging.ERROR)
        pw = pitwall.Pitwall("http://127.0.0.1:{}".format(port), "pw_bench", spool=root, max_backoff_s=5)
        run = pw.run(kind="training", name="bench spool", key="bench-spool")
        keys = ["train/metric_{:02d}".format(i) for i in range(args.keys)]
        values = {k: 0.0 for k in keys}
        wall0, cpu0 = time.perf_counter(), time.thread_time()
        for step in range(args.steps):
            for i, k in enumerate(keys):
                values[k] = step * 0.001 + i
            run.metrics(step, values)
        wall, cpu = time.perf_counter() - wall0, time.thread_time() - cpu0
        folder = pw.spool_folder or root
        spool_bytes = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder) if f.endswith(".jsonl"))
        result = {
            "steps": args.steps,
            "keysPerStep": args.keys,
            "callsPerS": round(args.steps / wall),
            "cpuUsPerCall": round(cpu / args.steps * 1e6, 2),
            "wallUsPerCall": round(wall / args.steps * 1e6, 2),
            "spoolBytes": spool_bytes,
            "stats": pw.stats(),
        }
        print("run.metrics, {} keys/step, spool on, server down: {:,.0f} calls/s, {:.1f} us CPU per call (target >= 20,000 calls/s), spool {:.1f} MB"
              .format(args.keys, result["callsPerS"], result["cpuUsPerCall"], spool_bytes / 1e6))
        print(json.dumps(result))
        pw.close(timeout_s=0)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
