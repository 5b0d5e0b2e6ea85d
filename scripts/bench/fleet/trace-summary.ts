/**
 * Reads an ingest trace (PITWALL_INGEST_TRACE=<file> on the server, lib/server/ingest-trace.ts)
 * and prints where the slowest acks spent their time: per batch, receipt → hand-over to the
 * group committer (the socket's previous batch in flight) → group start (interval, lanes) →
 * pool connection → each statement phase → COMMIT → ack written; the fold's transactions; the
 * server's event-loop delay.
 *
 * Run: `npx tsx scripts/bench/fleet/trace-summary.ts <file> [--from ms]` (profile.ts and
 * fleet.ts call {@link summariseTrace} themselves when they set the trace).
 */
import fs from "node:fs";

import { fmt, fmtInt, isMain } from "../support";

interface BatchLine {
  k: "batch";
  frames: number;
  recv: number;
  lastRecv: number;
  submit: number;
  heavy?: boolean;
  gFrames?: number;
  gParts?: number;
  marks?: Array<[string, number]>;
  ack: number;
}
interface FoldLine {
  k: "fold";
  start: number;
  end: number;
  runs: number;
  rows: number;
  marks: Array<[string, number]>;
}
interface EldLine {
  k: "eld";
  at: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** One batch's time split into consecutive segments (ms), summing to receipt → ack. */
function segments(b: BatchLine): Array<[string, number]> {
  const out: Array<[string, number]> = [["socket queue", b.submit - b.recv]];
  let prev = b.submit;
  for (const [name, at] of b.marks ?? []) {
    out.push([name === "start" ? "wait for group" : name, at - prev]);
    prev = at;
  }
  out.push(["ack write", b.ack - prev]);
  return out;
}

const pct = (sorted: readonly number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]! : NaN;

/** Prints the breakdown of `file`'s batches acked after `fromMs` (performance.now() of the server). */
export function summariseTrace(file: string, log: (line: string) => void, fromMs = 0): void {
  const batches: BatchLine[] = [];
  const folds: FoldLine[] = [];
  const eld: EldLine[] = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const v = JSON.parse(line) as BatchLine | FoldLine | EldLine;
    if (v.k === "batch" && v.recv >= fromMs) batches.push(v);
    else if (v.k === "fold" && v.start >= fromMs) folds.push(v);
    else if (v.k === "eld" && v.at >= fromMs) eld.push(v);
  }
  // Every frame of a batch is weighted alike, timed from its batch's oldest receipt (an upper bound).
  const frames = batches.flatMap((b) => Array.from({ length: b.frames }, () => b));
  const lat = frames.map((b) => b.ack - b.recv).sort((a, b) => a - b);
  const p99 = pct(lat, 0.99);
  log(
    `server-side ack latency (receipt of the batch's first frame -> ack written), ${fmtInt(lat.length)} frames in ${fmtInt(batches.length)} batches: p50 ${fmt(pct(lat, 0.5), 1)} | p90 ${fmt(pct(lat, 0.9), 1)} | p99 ${fmt(p99, 1)} | max ${fmt(lat[lat.length - 1] ?? NaN, 1)} ms`,
  );
  // `set`: one entry per frame (its batch), so every frame weighs alike.
  const describe = (label: string, set: BatchLine[]) => {
    const n = set.length;
    if (n === 0) return;
    const sum = new Map<string, number>();
    for (const b of set)
      for (const [name, ms] of segments(b)) sum.set(name, (sum.get(name) ?? 0) + ms);
    const heavy = set.reduce((s, b) => s + (b.heavy ? 1 : 0), 0);
    const gFrames = set.reduce((s, b) => s + (b.gFrames ?? 0), 0) / n;
    log(
      `  ${label}: ${fmtInt(n)} frames (${fmt((heavy * 100) / n, 0)} % in heavy groups; ${fmt(gFrames, 1)} frames per group), mean ms per segment:`,
    );
    log(
      `    ${[...sum]
        .filter(([, ms]) => Math.abs(ms / n) >= 0.05)
        .map(([name, ms]) => `${name} ${fmt(ms / n, 1)}`)
        .join(" | ")}`,
    );
  };
  describe(
    "frames at or above p99",
    frames.filter((b) => b.ack - b.recv >= p99),
  );
  describe(
    "frames p90-p99",
    frames.filter((b) => b.ack - b.recv >= pct(lat, 0.9) && b.ack - b.recv < p99),
  );
  describe("all frames", frames);
  describe(
    "light groups",
    frames.filter((b) => !b.heavy),
  );
  describe(
    "heavy groups",
    frames.filter((b) => b.heavy),
  );
  const dur = folds.map((f) => f.end - f.start).sort((a, b) => a - b);
  const busy = folds.filter((f) => f.rows > 0);
  log(
    `fold transactions: ${fmtInt(folds.length)} (${fmtInt(busy.length)} folded rows; ${fmtInt(busy.reduce((s, f) => s + f.rows, 0))} pending rows of ${fmtInt(busy.reduce((s, f) => s + f.runs, 0))} runs): ms p50 ${fmt(pct(dur, 0.5), 1)} | p99 ${fmt(pct(dur, 0.99), 1)} | max ${fmt(dur[dur.length - 1] ?? NaN, 1)}`,
  );
  if (busy.length) {
    const sum = new Map<string, number>();
    for (const f of busy) {
      let prev = f.start;
      for (const [name, at] of f.marks) {
        sum.set(name, (sum.get(name) ?? 0) + at - prev);
        prev = at;
      }
      sum.set("commit", (sum.get("commit") ?? 0) + f.end - prev);
    }
    log(
      `  folds that folded, mean ms: ${[...sum].map(([k, ms]) => `${k} ${fmt(ms / busy.length, 1)}`).join(" | ")}`,
    );
    // How much of the slow batches' run lookup overlapped a fold that held run locks.
    const slow = batches.filter((b) => b.ack - b.recv >= p99 && b.marks);
    let overlapped = 0;
    for (const b of slow) {
      const begin = b.marks!.find(([n]) => n === "begin")?.[1];
      const looked = b.marks!.find(([n]) => n === "loadRuns")?.[1];
      if (begin === undefined || looked === undefined) continue;
      if (
        busy.some((f) => {
          const lockAt = f.marks.find(([n]) => n === "lock")?.[1] ?? f.start;
          return lockAt < looked && f.end > begin;
        })
      )
        overlapped++;
    }
    log(
      `  batches at or above p99 whose run lookup overlapped a fold holding locks: ${fmtInt(overlapped)} of ${fmtInt(slow.length)}`,
    );
  }
  const eldP99 = eld.map((e) => e.p99Ms).sort((a, b) => a - b);
  const eldMax = eld.map((e) => e.maxMs).sort((a, b) => a - b);
  log(
    `event-loop delay per second (${eld.length} s): p99 of the seconds' p99 ${fmt(pct(eldP99, 0.99), 1)} ms, median ${fmt(pct(eldP99, 0.5), 1)} ms; max ${fmt(eldMax[eldMax.length - 1] ?? NaN, 1)} ms`,
  );
}

if (isMain(import.meta.url)) {
  const [file, flag, from] = process.argv.slice(2);
  if (!file) throw new Error("usage: trace-summary.ts <file> [--from ms]");
  summariseTrace(file, (l) => console.log(l), flag === "--from" ? Number(from) : 0);
}
