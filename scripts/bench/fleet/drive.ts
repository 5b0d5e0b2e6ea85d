import fs from "node:fs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";

import { fmt, fmtInt, onCleanup, percentile, sleep } from "../support";
import { RESTART_SHARE_PER_MIN, TARGET_P99_MS, type FleetOptions } from "./options";
import { summariseTrace } from "./trace-summary";
import { FleetTally, FleetWorker, KEYS_PER_STEP, latencyByKindText } from "./traffic";

/**
 * The server's ingest trace (PITWALL_INGEST_TRACE set when the bench starts: the server appends to
 * that file, lib/server/ingest-trace.ts). `begin` empties it; `report` prints the breakdown of what
 * was traced since (scripts/bench/fleet/trace-summary.ts). No-ops when unset.
 */
export const trace = {
  file: process.env.PITWALL_INGEST_TRACE,
  begin(): void {
    if (this.file) fs.writeFileSync(this.file, "");
  },
  async report(log: (line: string) => void): Promise<void> {
    if (!this.file) return;
    await sleep(1200); // written once a second
    summariseTrace(this.file, (l) => log(`    ${l}`));
  },
};

/** The bench process's own event-loop delay over a phase (its lateness inflates every latency). */
export function benchLoopDelay(): () => string {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return () => {
    h.disable();
    return `bench process event-loop delay p99 ${fmt(h.percentile(99) / 1e6, 1)} ms, max ${fmt(h.max / 1e6, 1)} ms`;
  };
}

/** Opens `n` workers on `url` (20 at a time), runs keys `<prefix>-<i>`. */
export async function openWorkers(
  url: string,
  tokens: string[],
  prefix: string,
  tally: FleetTally,
): Promise<FleetWorker[]> {
  const workers = tokens.map((t, i) => new FleetWorker(url, t, i, `${prefix}-${i}`, tally));
  onCleanup(`${prefix} sockets`, async () => workers.forEach((w) => w.close()));
  for (let i = 0; i < workers.length; i += 20)
    await Promise.all(workers.slice(i, i + 20).map((w) => w.open()));
  return workers;
}

/**
 * Drives `workers` at `stepHz` for `durationS`, restarting RESTART_SHARE_PER_MIN of them per
 * minute (spread over the phase), then waits up to `drainMs` for the last acks.
 * Returns whether every frame was answered in time.
 */
export async function drive(
  workers: FleetWorker[],
  stepHz: number,
  durationS: number,
  drainMs: number,
  onSecond?: () => void,
): Promise<boolean> {
  const t0 = performance.now() + 50;
  const end = t0 + durationS * 1000;
  workers.forEach((w, i) => w.schedule(t0, stepHz, i / workers.length));
  const restarts = Math.round(workers.length * RESTART_SHARE_PER_MIN * (durationS / 60));
  const restartAt = Array.from(
    { length: restarts },
    (_, k) => t0 + ((k + 0.5) / restarts) * durationS * 1000,
  );
  let nextRestart = 0;
  let nextSecond = t0 + 1000;
  const restarting: Promise<void>[] = [];
  while (performance.now() < end) {
    const now = performance.now();
    for (const w of workers) w.pump(now, end);
    while (nextRestart < restarts && restartAt[nextRestart]! <= now) {
      const w = workers[(nextRestart * 7919) % workers.length]!;
      nextRestart++;
      restarting.push(w.restart());
    }
    if (onSecond && now >= nextSecond) {
      nextSecond += 1000;
      onSecond();
    }
    await sleep(2);
  }
  await Promise.all(restarting);
  const drainStart = performance.now();
  while (workers.some((w) => w.pending > 0) && performance.now() - drainStart < drainMs)
    await sleep(50);
  return !workers.some((w) => w.pending > 0);
}

/** Ack latency (ms from the scheduled send) of tally `t`: p50, p99, max and a printable line. */
export function latencyLine(t: FleetTally): {
  p50: number;
  p99: number;
  max: number;
  text: string;
} {
  const lat = Float64Array.from(t.latencies).sort();
  const p50 = percentile(lat, 0.5);
  const p99 = percentile(lat, 0.99);
  const max = lat[lat.length - 1] ?? NaN;
  return {
    p50,
    p99,
    max,
    text: `ack ms from the scheduled send (${fmtInt(lat.length)} samples): p50 ${fmt(p50, 1)} | p99 ${fmt(p99, 1)} | max ${fmt(max, 1)}`,
  };
}

/** Ramps one target; returns the highest step rate per worker (Hz) whose stage passed (0 when none). */
export async function ramp(
  label: string,
  url: string,
  tokens: string[],
  o: FleetOptions,
  log: (line: string) => void,
): Promise<number> {
  const tally = new FleetTally();
  const workers = await openWorkers(url, tokens, `fleet-ramp-${label}-${Date.now()}`, tally);
  let passed = 0;
  try {
    for (let hz = 1; hz <= 5000; hz *= 1.5) {
      const stage = new FleetTally();
      Object.assign(tally, stage);
      if (label === "pitwall") trace.begin();
      const loop = benchLoopDelay();
      const drained = await drive(workers, hz, o.stageS, 5000);
      const loopText = loop();
      const l = latencyLine(tally);
      const ok = drained && l.p99 < TARGET_P99_MS && tally.rejected.size === 0;
      log(
        `  ${label.padEnd(7)} ${fmt(hz, 2).padStart(6)} steps/s/worker = ${fmtInt(hz * tokens.length * KEYS_PER_STEP).padStart(7)} points/s: p50 ${fmt(l.p50, 0)} | p99 ${fmt(l.p99, 0)} | max ${fmt(l.max, 0)} ms${drained ? "" : " | backlog after 5 s"}${tally.rejected.size ? ` | rejected ${[...tally.rejected].join(" ")}` : ""} -> ${ok ? "pass" : "FAIL"}`,
      );
      if (!ok || process.env.PITWALL_FLEET_VERBOSE) {
        log(`    ${latencyByKindText(tally)}; ${loopText}`);
        if (label === "pitwall") await trace.report(log);
      }
      if (!ok) break;
      passed = hz;
    }
  } finally {
    workers.forEach((w) => w.close());
  }
  await sleep(2000); // let the target settle before the next ramp
  return passed;
}
