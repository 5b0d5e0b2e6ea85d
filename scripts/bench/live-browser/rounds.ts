import os from "node:os";

import { fmt, fmtInt, percentile, printTable } from "../support";
import { RANK_HZ, RANKS } from "./constants";
import type { PageFigures } from "./page-watch";

/** One measured round: N pages watching while the ranks wrote for `seconds`. */
export interface Round {
  pages: number;
  seconds: number;
  figures: PageFigures[];
  scheduled: Map<number, number>;
  acked: number;
  ackLatencies: number[];
}

/** "p50 | p99 | max ms (n samples, m never seen)" of latencies in ms (Infinity = never seen). */
export function spread(values: number[]): { p99: number; text: string } {
  const lat = Float64Array.from(values).sort();
  const missed = lat.filter((x) => !Number.isFinite(x)).length;
  const finite = lat.subarray(0, lat.length - missed);
  const max = missed ? "never" : fmt(lat[lat.length - 1] ?? NaN, 0);
  return {
    p99: percentile(lat, 0.99),
    text: `p50 ${fmt(percentile(finite, 0.5), 0)} | p99 ${fmt(percentile(lat, 0.99), 0)} | max ${max} ms (${fmtInt(lat.length)} samples, ${fmtInt(missed)} never seen)`,
  };
}

/** p99 of a page latency (`of`) over all pages per 10 s of the round, in order ("never" for a lost step): where the tail lies. */
function windowsText(round: Round, of: (f: PageFigures) => number[]): string {
  const perWindow = 10 * RANK_HZ;
  const n = Math.max(0, ...round.figures.map((f) => of(f).length));
  const out: string[] = [];
  for (let from = 0; from < n; from += perWindow) {
    const lat = Float64Array.from(
      round.figures.flatMap((f) => of(f).slice(from, from + perWindow)),
    ).sort();
    const p99 = percentile(lat, 0.99);
    out.push(Number.isFinite(p99) ? fmt(p99, 0) : "never");
  }
  return out.join(", ");
}

/** "delta 181 × 12.3 kB, snapshot 1 × 410.2 kB": live messages per page over the round, by type. */
function wireText(round: Round): string {
  const total = new Map<string, { n: number; bytes: number }>();
  for (const f of round.figures)
    for (const [kind, c] of Object.entries(f.wire ?? {})) {
      const t = total.get(kind) ?? { n: 0, bytes: 0 };
      total.set(kind, { n: t.n + c.n, bytes: t.bytes + c.bytes });
    }
  const pages = Math.max(1, round.figures.length);
  return (
    [...total]
      .map(([kind, t]) => `${kind} ${fmt(t.n / pages, 0)} × ${fmt(t.bytes / t.n / 1000, 1)} kB`)
      .join(", ") || "none"
  );
}

/** Prints one round's table as soon as it ends, with the machine's load at that moment. */
export function printRound(
  round: Round,
  i: number,
  setup: string,
  log: (line: string) => void,
): void {
  const met = (ok: boolean) => (ok ? "met" : "NOT met");
  const ms = (x: number | undefined) =>
    x === undefined || !Number.isFinite(x) ? "never" : fmt(x, 0);
  const drawn = spread(round.figures.flatMap((f) => f.latencies));
  const message = spread(round.figures.flatMap((f) => f.messageLatencies));
  const ack = spread(round.ackLatencies);
  const longT = Float64Array.from(round.figures.flatMap((f) => f.longTasks)).sort();
  const reqPerS = round.figures.map((f) => f.requestsPerS);
  const rows: Array<[string, string]> = [
    [`push -> loss drawn (target p99 < 250 ms: ${met(drawn.p99 < 250)})`, drawn.text],
    [
      "first (cold) push -> drawn, per page",
      `${round.figures.map((f) => ms(f.latencies[0])).join(", ")} ms`,
    ],
    ["anchor: push -> live message (or series refetch) at the page", message.text],
    ["anchor: push -> ack (rank 0 frame, in Node)", ack.text],
    [
      `long tasks (target p99 < 100 ms: ${met(longT.length === 0 || percentile(longT, 0.99) < 100)})`,
      longT.length
        ? `${fmtInt(longT.length)} tasks, p50 ${fmt(percentile(longT, 0.5), 0)} | p99 ${fmt(percentile(longT, 0.99), 0)} | max ${fmt(longT[longT.length - 1]!, 0)} ms`
        : "none",
    ],
    ["push -> drawn p99 per 10 s of the round (ms)", windowsText(round, (f) => f.latencies)],
    [
      "anchor: push -> live message p99 per 10 s (ms)",
      windowsText(round, (f) => f.messageLatencies),
    ],
    ["live messages per page (mean): count, mean size", wireText(round)],
    [
      `HTTP requests per page per second (target < 0.2: ${met(Math.max(...reqPerS) < 0.2)})`,
      `max ${fmt(Math.max(...reqPerS), 2)}, mean ${fmt(reqPerS.reduce((a, b) => a + b, 0) / reqPerS.length, 2)}`,
    ],
    ["rank frames acked", `${fmtInt(round.acked)} of ${fmtInt(round.scheduled.size * RANKS)}`],
  ];
  const load = os
    .loadavg()
    .map((x) => fmt(x, 2))
    .join(" ");
  printTable(
    `live-browser${i > 0 ? " (reference)" : ""}: ${round.pages} pages (viewers), ${RANKS} ranks at ${RANK_HZ} Hz for ${round.seconds} s; ${setup}; ${os.cpus().length} cores, loadavg ${load}`,
    rows,
    log,
  );
}
