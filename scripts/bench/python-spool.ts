/**
 * Bench scenario `python-spool`: the Python client's caller-side cost of `run.metrics` with 30
 * keys per step and the spool on, the server unreachable (issue 24's target: >= 20,000 calls/s;
 * the spool absorbs everything, the server need not keep up). Runs clients/python/bench_spool.py
 * with python3 and prints calls/s (wall) and CPU µs per call (the calling thread's CPU time, so
 * other load on the machine does not count), plus the calls/s that CPU cost allows.
 * Figures only; nothing is asserted. Skipped with a note when python3 is missing.
 * Run alone: `npx tsx scripts/bench/python-spool.ts [--full]` (200,000 steps, 1,000,000 with --full).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

import type { Scenario } from "./support";

const script = path.resolve(import.meta.dirname, "../../clients/python/bench_spool.py");

export const scenario: Scenario = {
  name: "python-spool",
  description:
    "Python client: run.metrics (30 keys) calls/s and CPU µs per call with the spool on (target >= 20,000 calls/s)",
  async run(opts) {
    const steps = opts.full ? 1_000_000 : 200_000;
    const r = spawnSync("python3", [script, "--steps", String(steps)], {
      encoding: "utf8",
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    });
    if (r.error || r.status !== 0) {
      opts.log(
        `python-spool: skipped (python3 failed: ${r.error?.message ?? r.stderr.trim().split("\n").at(-1)})`,
      );
      return;
    }
    const last = r.stdout.trim().split("\n").at(-1)!;
    const res = JSON.parse(last) as {
      steps: number;
      keysPerStep: number;
      callsPerS: number;
      cpuUsPerCall: number;
      spoolBytes: number;
    };
    const cpuBound = Math.round(1e6 / res.cpuUsPerCall);
    opts.log(
      `python-spool: ${res.steps.toLocaleString("en-US")} calls of run.metrics with ${res.keysPerStep} keys, spool on, server down`,
    );
    opts.log(
      `  wall        ${res.callsPerS.toLocaleString("en-US")} calls/s   (target >= 20,000 calls/s)`,
    );
    opts.log(
      `  CPU         ${res.cpuUsPerCall.toFixed(1)} µs per call = ${cpuBound.toLocaleString("en-US")} calls/s on one free core`,
    );
    opts.log(`  spool       ${(res.spoolBytes / 1e6).toFixed(1)} MB on disk`);
  },
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await scenario.run({ full: process.argv.includes("--full"), log: (line) => console.log(line) });
}
