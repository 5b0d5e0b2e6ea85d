import type pg from "pg";
import type { z } from "zod";
import type { metricPoint } from "@/lib/protocol";
import type { PointColumns } from "@/lib/metrics/tiers";
import { copyPoints, copyRows, STAGE_TABLE } from "./metric-stage";
import { nonFiniteUpsertSql, pointId, repairReplaced, tierMergeSql } from "./metric-tiers";
import { maxStepSql, overflowAlerts, type RaisedAlert } from "./metric-overflow";

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
 * stored. Per run in the batch:
 * - 256+ points (COPY_MIN_POINTS): first ONE statement of data-modifying CTEs reads and raises the
 *   per-key highest steps ("MetricSeries", metric-overflow.ts), merges the batch's summaries into
 *   "MetricTier" and upserts its NaN/±Infinity points into "MetricNonFinite" (metric-tiers.ts),
 *   returning the highest steps stored before the batch. When every step of the batch is above
 *   its key's stored highest step (a training run appending: the normal case), no step can exist
 *   yet, so the points are COPYed straight into "MetricPoint" (metric-stage.ts): no staging table,
 *   no `ON CONFLICT` probe. Otherwise they are COPYed into the staging table and merged with
 *   `ON CONFLICT DO UPDATE`, which reports the steps it replaced; their buckets are then
 *   recomputed (rare). Two round trips either way (three on the fallback).
 * - fewer points: the same statement also merges `unnest` of bound arrays (one round trip).
 * The run row is locked by the caller (apply.ts), so batches of one run never interleave, and
 * "MetricSeries" never holds a lower step than "MetricPoint" for its (run, key) (every writer of
 * MetricPoint raises it in the same statement or, for rows loaded by SQL, `rebuildRunTiers`;
 * deleting points only makes the check conservative), which is what makes the COPY safe.
 * Points without `ts` get `at`. The hot path allocates per batch, not per point object (columns,
 * one COPY text, one timestamp string per run of equal `ts`). Returns alerts for steps that
 * jumped back by ~2^32 (a wrapped 32-bit counter).
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
  let staged = false;
  for (const [runId, lists] of byRun) {
    const batch = columnsOf(lists);
    const small = batch.points.key.length < COPY_MIN_POINTS;
    const res = await client.query<{ prev: boolean; key: string; step: string }>(
      ...statement(runId, batch.points, at, { summarise: true, merge: small ? { kind: "arrays", ts: batch.ts } : null }),
    );
    const stored = new Map<string, bigint>();
    const replaced = new Set<string>();
    for (const r of res.rows) {
      if (r.prev) stored.set(r.key, BigInt(r.step));
      else replaced.add(pointId(r.key, BigInt(r.step)));
    }
    alerts.push(...overflowAlerts(runId, batch.points, stored));
    if (!small) {
      if (allNew(batch.points, stored)) {
        await copyPoints(client, copyTextOf(batch.points, batch.ts, { runId, at }));
      } else {
        // The previous run's staged rows are merged; this run stages its own.
        await copyRows(client, copyTextOf(batch.points, batch.ts, null), staged);
        staged = true;
        const merged = await client.query<{ prev: boolean; key: string; step: string }>(...statement(runId, batch.points, at, { summarise: false, merge: { kind: "stage" } }));
        for (const r of merged.rows) replaced.add(pointId(r.key, BigInt(r.step)));
      }
    }
    await repairReplaced(client, runId, batch.points, replaced);
  }
  return alerts;
}

/** True when every step of `points` is above its key's highest stored step (`stored`; a key without one has no points). */
function allNew(points: PointColumns, stored: ReadonlyMap<string, bigint>): boolean {
  if (stored.size === 0) return true;
  for (let i = 0; i < points.key.length; i++) {
    const max = stored.get(points.key[i]!);
    if (max !== undefined && points.step[i]! <= max) return false;
  }
  return true;
}

/**
 * Fewer points than this in one run's batch skip COPY: the extra round trip (and, on the
 * fallback, the staging table's CREATE IF NOT EXISTS and per-COMMIT truncation) cost more than
 * the array encoding of a few rows. Measured with the soak (200 workers, 3-point frames; docs/architecture.md).
 */
const COPY_MIN_POINTS = 256;

/** Where a merge reads a run's points: the COPY staging table, or `unnest` of bound arrays (small batches). */
type PointSource = { kind: "stage" } | { kind: "arrays"; ts: ReadonlyArray<number | undefined> };

/**
 * A statement of a run's batch (see upsertMetricPoints): with `summarise`, the highest-step,
 * tier and non-finite parts, returning rows `prev = true` (the stored highest steps); with
 * `merge`, the `ON CONFLICT` upsert of the points from that source, returning rows `prev = false`
 * (the steps it replaced).
 */
function statement(runId: number, points: PointColumns, at: Date, parts: { summarise: boolean; merge: PointSource | null }): [string, unknown[]] {
  // $2 (the batch's time) only when a merge reads it: an unreferenced parameter has no type.
  const params: unknown[] = parts.merge ? [runId, at] : [runId];
  const add = (part: { sql: string; params: unknown[] }) => {
    params.push(...part.params);
    return part.sql;
  };
  const ctes: string[] = [];
  const selects: string[] = [];
  if (parts.summarise) {
    const steps = maxStepSql(points, params.length + 1);
    ctes.push(`prev AS (${steps.prev})`, `raised AS (${add(steps.raised)})`, `tiers AS (${add(tierMergeSql(points, params.length + 1))})`);
    const special = nonFiniteUpsertSql(points, params.length + 1);
    if (special) ctes.push(`special AS (${add(special)})`);
    selects.push(`SELECT true AS prev, key, "maxStep"::text AS step FROM prev`);
  }
  if (parts.merge) {
    let from: string = STAGE_TABLE;
    if (parts.merge.kind === "arrays") {
      const n = params.length;
      params.push(points.key, points.step.map(String), points.value, parts.merge.ts.map((ms) => (ms === undefined ? null : new Date(ms))));
      from = `unnest($${n + 1}::text[], $${n + 2}::int8[], $${n + 3}::float8[], $${n + 4}::timestamptz[]) AS p(key, step, value, ts)`;
    }
    // xmax <> 0 marks a row the ON CONFLICT branch updated (the step existed): only those come back.
    ctes.push(`written AS (
       INSERT INTO "MetricPoint" ("runId", key, step, value, ts)
       SELECT $1::int4, key, step, value, coalesce(ts, $2::timestamptz) FROM ${from}
       ON CONFLICT ("runId", key, step) DO UPDATE SET value = EXCLUDED.value, ts = EXCLUDED.ts
       RETURNING key, step, xmax)`);
    selects.push(`SELECT false AS prev, key, step::text FROM written WHERE xmax::text <> '0'`);
  }
  return [`WITH ${ctes.join(",\n     ")}\n   ${selects.join("\n   UNION ALL ")}`, params];
}

/** One run's batch: its distinct points as columns, in arrival order (latest occurrence of a repeated step), and their own times (epoch ms; undefined: the batch's). */
interface RunBatch {
  points: PointColumns;
  ts: ReadonlyArray<number | undefined>;
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
 * COPY text-format lines in chunks: `key \t step \t value \t ts` for the staging table (`\N`: the
 * batch's time, filled in by the merge), or with `direct` `runId \t key \t step \t value \t ts`
 * for "MetricPoint" (a point without ts gets `direct.at`). Keys escaped once each, one ISO
 * string per run of equal `ts`.
 */
function copyTextOf(points: PointColumns, ts: ReadonlyArray<number | undefined>, direct: { runId: number; at: Date } | null): string[] {
  const escaped = new Map<string, string>();
  const prefix = direct ? `${direct.runId}\t` : "";
  const noTs = direct ? direct.at.toISOString() : "\\N";
  let lastMs: number | undefined;
  let lastIso = noTs;
  const chunks: string[] = [];
  let text = "";
  for (let i = 0; i < points.key.length; i++) {
    const k = points.key[i]!;
    let e = escaped.get(k);
    if (e === undefined) escaped.set(k, (e = prefix + escapeCopyText(k)));
    const ms = ts[i];
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = ms === undefined ? noTs : new Date(ms).toISOString();
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

/** A value as a COPY text-format field: backslash, tab, newline and carriage return escaped. */
export function escapeCopyText(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r")) : s;
}
