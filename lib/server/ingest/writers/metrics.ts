import type pg from "pg";
import type { z } from "zod";
import type { metricPoint } from "@/lib/protocol";
import type { PointColumns } from "@/lib/metrics/tiers";
import { copyRows, STAGE_TABLE } from "./metric-stage";
import { maintainMetricTiers, pointId } from "./metric-tiers";
import { overflowAlerts, type RaisedAlert } from "./metric-overflow";

export type { RaisedAlert } from "./metric-overflow";

type MetricPoint = z.infer<typeof metricPoint>;

/** The points of one `run.metrics` frame, for run `runId` (the frame's array as validated, not copied). */
export interface MetricFrame {
  runId: number;
  points: readonly MetricPoint[];
}

/**
 * Upserts metric points by (run, key, step): a re-sent step replaces the old value (a resumed
 * attempt wins; within the batch the latest occurrence wins); out-of-order steps are simply
 * stored. Per run in the batch: the points go through `COPY … FROM STDIN` (text format) into a
 * per-connection staging table (metric-stage.ts) and one `INSERT … SELECT … ON CONFLICT DO
 * UPDATE` merges them into "MetricPoint", reporting the steps it replaced; the run's tiers
 * (metric-tiers.ts) and per-key highest steps ("MetricSeries", metric-overflow.ts) are updated
 * in the same transaction. Points without `ts` get `at`. The hot path allocates per batch, not
 * per point (columns, one COPY text, one timestamp string per distinct `ts`).
 * Returns alerts for steps that jumped backwards by ~2^32 (a wrapped 32-bit step counter).
 * @throws whatever PostgreSQL raises (e.g. 22021 for a NUL in a key); the caller rolls back.
 */
export async function upsertMetricPoints(client: pg.PoolClient, frames: readonly MetricFrame[], at: Date): Promise<RaisedAlert[]> {
  const byRun = new Map<number, Array<readonly MetricPoint[]>>();
  for (const f of frames) {
    const list = byRun.get(f.runId);
    if (list) list.push(f.points);
    else byRun.set(f.runId, [f.points]);
  }
  const alerts: RaisedAlert[] = [];
  for (const [runId, lists] of byRun) {
    const batch = columnsOf(lists);
    alerts.push(...(await overflowAlerts(client, runId, batch.points)));
    await copyRows(client, batch.copyText);
    // xmax <> 0 marks a row the ON CONFLICT branch updated (the step existed): only those come back.
    const res = await client.query<{ key: string; step: string }>(
      `WITH written AS (
         INSERT INTO "MetricPoint" ("runId", key, step, value, ts)
         SELECT $1::int4, key, step, value, coalesce(ts, $2::timestamptz) FROM ${STAGE_TABLE}
         ON CONFLICT ("runId", key, step) DO UPDATE SET value = EXCLUDED.value, ts = EXCLUDED.ts
         RETURNING key, step, xmax)
       SELECT key, step::text AS step FROM written WHERE xmax::text <> '0'`,
      [runId, at],
    );
    // The staged rows of this run are merged; the next run of the batch stages its own.
    if (byRun.size > 1) await client.query(`DELETE FROM ${STAGE_TABLE}`);
    await maintainMetricTiers(client, runId, batch.points, new Set(res.rows.map((r) => pointId(r.key, BigInt(r.step)))));
  }
  return alerts;
}

/** One run's batch: its distinct points as columns, in arrival order (latest occurrence of a repeated step), and their COPY text. */
interface RunBatch {
  points: PointColumns;
  copyText: string;
}

/** Builds a run's batch from its frames' point arrays in one pass (a second, Map-based one only when a key's steps did not strictly increase). */
function columnsOf(lists: ReadonlyArray<readonly MetricPoint[]>): RunBatch {
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
  const out: PointColumns = keep ? { key: key.filter((_, i) => keep[i]), step: step.filter((_, i) => keep[i]), value: value.filter((_, i) => keep[i]) } : { key, step, value };
  return { points: out, copyText: copyTextOf(out, keep ? ts.filter((_, i) => keep[i]) : ts) };
}

/** Flags the last occurrence of every (key, step): within one statement a row may be written once. */
function latestOccurrences(key: readonly string[], step: readonly bigint[]): boolean[] {
  const last = new Map<string, number>();
  key.forEach((k, i) => last.set(pointId(k, step[i]!), i));
  return key.map((k, i) => last.get(pointId(k, step[i]!)) === i);
}

/** COPY text-format lines `key \t step \t value \t ts` (`\N`: the batch's time); keys escaped once each, one ISO string per run of equal `ts`. */
function copyTextOf(points: PointColumns, ts: ReadonlyArray<number | undefined>): string {
  const escaped = new Map<string, string>();
  let lastMs: number | undefined;
  let lastIso = "\\N";
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
  }
  return text;
}

/** A value as a COPY text-format field: backslash, tab, newline and carriage return escaped. */
export function escapeCopyText(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r")) : s;
}
