"""Simulated generation worker of `npm run demo`, pushing through the real Python client.

Starts a generation run (100K prompts, stall threshold --stall-after seconds), reports progress
about once per real second for --silent-after real seconds, then hangs without pushing anything
more (like a worker stuck in a collective), so the dashboard shows the run turning stale. The
demo stops it with SIGTERM. Reads PITWALL_URL and PITWALL_TOKEN; prints "ready" once the server
has the run and "silent" when it stops pushing.
"""

import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

from pitwall import Pitwall  # noqa: E402 (the client lives in clients/python)

TOTAL_PROMPTS = 100_000


def main() -> None:
    parser = argparse.ArgumentParser(description="simulated generation worker for npm run demo")
    parser.add_argument("--key", required=True, help="run key")
    parser.add_argument("--speed", type=float, default=60.0, help="simulated seconds per real second")
    parser.add_argument("--silent-after", type=float, default=15.0, help="real seconds of pushing before the worker hangs")
    parser.add_argument("--stall-after", type=int, default=25, help="run.start stallAfterS")
    parser.add_argument("--prompts-per-s", type=float, default=0.195, help="simulated prompts per second")
    args = parser.parse_args()

    # The demo stops us with SIGTERM; a hung worker has nothing left to say, so leave at once.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))

    pw = Pitwall(worker_id="gen0", flush_timeout_s=10.0)
    run = pw.run(
        kind="generation",
        name="Completions · 100K prompts · Qwen3.6-27B",
        key=args.key,
        total=TOTAL_PROMPTS,
        unit="prompts",
        stall_after_s=args.stall_after,
        tags=["generation", "demo", "python-client"],
        config={"model": "Qwen/Qwen3.6-27B", "engine": "sglang", "engineVersion": "0.5.11", "tp": 2,
                "dataset": "prompts-100k", "maxNewTokens": 2048, "temperature": 0.7, "client": "clients/python/pitwall"},
    )
    run.event("generation started: {:,} prompts on GPUs 4-5 (pushed by the Python client)".format(TOTAL_PROMPTS))
    if not pw.flush(30.0):
        sys.exit("the Pitwall server did not answer within 30 s")
    print("ready", flush=True)

    started = last = time.monotonic()
    done = 0.0
    tokens = 0.0
    while time.monotonic() - started < args.silent_after:
        time.sleep(1.0)
        now = time.monotonic()
        sim_dt = (now - last) * args.speed
        last = now
        done = min(TOTAL_PROMPTS, done + args.prompts_per_s * sim_dt)
        tokens = done * 612.0
        run.progress(int(done), total=TOTAL_PROMPTS, counters={"tokens.out": int(tokens)})
        # Watched by the demo's "Generation stopped producing" alert rule (silent once hung).
        run.metrics(int(done), {"prompts_per_s": args.prompts_per_s})
        # The engine's own log lines, as `pitwall run` would forward them (the run page's Output panel).
        run.output("[sglang] Decode batch. #running-req: 96, #token: {:,}, gen throughput (token/s): {:,.1f}".format(
            int(tokens) % 900_000, args.prompts_per_s * 612.0))
    run.output("[sglang] WARNING watchdog: NCCL collective ALLREDUCE on rank 1 timed out after 600000 ms",
               "[sglang] ERROR scheduler hung: no progress for 600 s; see nccl debug log")
    pw.flush(10.0)
    print("silent", flush=True)
    # Hung: nothing more is pushed until the demo stops us.
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
