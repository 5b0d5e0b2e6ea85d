import type { z } from "zod";

import type { PointColumns } from "@/lib/metrics/tiers";
import type { metricPoint } from "@/lib/protocol";

import { escapeCopyText } from "./stage";
import { pointId } from "./tiers";

/*
 * A write batch's points as columns (append.ts): per run its distinct points in arrival order, the
 * bound `unnest` columns of several runs, and the COPY text of a run's points.
 */

/** One metric point of a `run.metrics` frame (lib/protocol). */
export type MetricPoint = z.infer<typeof metricPoint>;

/** Points of several runs as the bound columns of an `unnest` (ts null: the batch's time). */
export class PointCols {
  private readonly runId: number[] = [];
  private readonly key: string[] = [];
  private readonly step: string[] = [];
  private readonly value: number[] = [];
  private readonly ts: Array<Date | null> = [];

  get length(): number {
    return this.runId.length;
  }

  push(runId: number, key: string, step: bigint, value: number, ms: number | undefined): void {
    this.runId.push(runId);
    this.key.push(key);
    this.step.push(step.toString());
    this.value.push(value);
    this.ts.push(ms === undefined ? null : new Date(ms));
  }

  /** The five arrays, in unnest's order: run ids, keys, steps (decimal text), values, times. */
  params(): unknown[] {
    return [this.runId, this.key, this.step, this.value, this.ts];
  }
}

/** One run's batch: its distinct points as columns, in arrival order (latest occurrence of a repeated step), and their own times (epoch ms; undefined: the batch's). */
export interface RunBatch {
  runId: number;
  points: PointColumns;
  ts: ReadonlyArray<number | undefined>;
}

/** Builds a run's batch from its frames' point arrays in one pass (a second, Map-based one only when a key's steps did not strictly increase). */
export function columnsOf(lists: ReadonlyArray<readonly MetricPoint[]>): Omit<RunBatch, "runId"> {
  const key: string[] = [];
  const step: bigint[] = [];
  const value: number[] = [];
  const ts: Array<number | undefined> = [];
  const lastStep = new Map<string, bigint>();
  let ordered = true;
  for (const points of lists) {
    for (const p of points) {
      // Validated as a safe integer or a signed 64-bit decimal string (lib/protocol).
      const s = BigInt(p.step);
      const prev = lastStep.get(p.key);
      if (prev !== undefined && s <= prev) ordered = false;
      lastStep.set(p.key, s);
      key.push(p.key);
      step.push(s);
      value.push(p.value);
      ts.push(p.ts);
    }
  }
  const keep = ordered ? null : latestOccurrences(key, step);
  const out: PointColumns = keep
    ? {
        key: key.filter((_, i) => keep[i]),
        step: step.filter((_, i) => keep[i]),
        value: value.filter((_, i) => keep[i]),
      }
    : { key, step, value };
  return { points: out, ts: keep ? ts.filter((_, i) => keep[i]) : ts };
}

/** Flags the last occurrence of every (key, step): within one statement a row may be written once. */
function latestOccurrences(key: readonly string[], step: readonly bigint[]): boolean[] {
  const last = new Map<string, number>();
  key.forEach((k, i) => last.set(pointId(k, step[i]!), i));
  return key.map((k, i) => last.get(pointId(k, step[i]!)) === i);
}

/** Lines per COPY chunk: a huge batch is never one giant string (≈ 40 bytes a line). */
const LINES_PER_CHUNK = 20_000;

/**
 * COPY text-format lines for the staging table in chunks: `key \t step \t value \t ts` (`\N`:
 * the batch's time, filled in by the merge). Keys escaped once each, one ISO string per run of
 * equal `ts`.
 */
export function copyTextOf(points: PointColumns, ts: ReadonlyArray<number | undefined>): string[] {
  const escaped = new Map<string, string>();
  let lastMs: number | undefined;
  let lastIso = "\\N";
  const chunks: string[] = [];
  let text = "";
  for (let i = 0; i < points.key.length; i++) {
    const k = points.key[i]!;
    let e = escaped.get(k);
    if (e === undefined) escaped.set(k, (e = escapeCopyText(k)));
    const ms = ts[i];
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = ms === undefined ? "\\N" : new Date(ms).toISOString();
    }
    // String() of a double is its shortest round-trip form; PostgreSQL reads NaN/Infinity/-Infinity as such.
    text += `${e}\t${points.step[i]}\t${points.value[i]}\t${lastIso}\n`;
    if ((i + 1) % LINES_PER_CHUNK === 0) {
      chunks.push(text);
      text = "";
    }
  }
  if (text) chunks.push(text);
  return chunks;
}
