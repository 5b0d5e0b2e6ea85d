import type pg from "pg";

import { uploadInvariant } from "@/lib/metrics/invariants";
import {
  accumulateCounter,
  aggregateWorkers,
  counterTotal,
  isGaugeCounter,
  type CounterState,
} from "@/lib/metrics/progress";
import type { RunProgressFrame } from "@/lib/protocol";

import { insertEvent } from "./runs";

/** A worker's row as kept during one batch. */
interface WorkerRow {
  bootId: string;
  done: number | null;
  total: number | null;
  unit: string | null;
  counters: Record<string, number>;
  counterState: Record<string, CounterState>;
  lastPushAt: Date;
}

/** A `run.progress` frame for run `runId`. */
export interface ProgressWrite {
  runId: number;
  frame: RunProgressFrame;
}

/**
 * Applies `run.progress` frames (of any runs and workers, in order): folds each worker's per-boot
 * cumulative counters into monotonic totals (a restart that drops a counter never lowers the run
 * total), stores the worker's position, and appends a sample per frame for windowed rates and the
 * "over time" charts. Two statements for all of them: the workers' rows are read and locked
 * (FOR UPDATE, in (run, worker) order) so concurrent transactions for one worker serialise, then
 * the final rows and every sample are written together.
 */
export async function applyProgress(
  client: pg.PoolClient,
  writes: readonly ProgressWrite[],
  at: Date,
): Promise<void> {
  if (writes.length === 0) return;
  const idOf = (runId: number, workerId: string) => `${runId}\u0000${workerId}`;
  const keys = new Map<string, { runId: number; workerId: string }>();
  for (const { runId, frame } of writes)
    keys.set(idOf(runId, frame.workerId), { runId, workerId: frame.workerId });
  const workers = await loadWorkers(client, [...keys.values()]);
  const samples: Array<{
    runId: number;
    workerId: string;
    bootId: string;
    ts: Date;
    done: number | null;
    counters: string;
  }> = [];
  for (const { runId, frame: f } of writes) {
    const id = idOf(runId, f.workerId);
    const ts = f.ts ? new Date(f.ts) : at;
    const w = workers.get(id) ?? freshWorker(f.bootId, ts);
    for (const [name, value] of Object.entries(f.counters ?? {})) {
      if (isGaugeCounter(name)) {
        w.counters[name] = value;
      } else {
        const state = accumulateCounter(w.counterState[name], f.bootId, value);
        w.counterState[name] = state;
        w.counters[name] = counterTotal(state);
      }
    }
    w.bootId = f.bootId;
    if (f.done !== undefined) w.done = f.done;
    if (f.total !== undefined) w.total = f.total;
    if (f.unit !== undefined) w.unit = f.unit;
    if (ts > w.lastPushAt) w.lastPushAt = ts;
    workers.set(id, w);
    samples.push({
      runId,
      workerId: f.workerId,
      bootId: w.bootId,
      ts,
      done: f.done ?? null,
      counters: JSON.stringify(w.counters),
    });
  }
  const rows = [...keys].map(([id, k]) => ({ ...k, w: workers.get(id)! }));
  await client.query(
    `WITH worker AS (
       INSERT INTO "WorkerProgress" ("runId", "workerId", "bootId", done, total, unit, counters, "counterState", "lastPushAt")
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::float8[], $5::float8[], $6::text[], $7::jsonb[], $8::jsonb[], $9::timestamptz[])
       ON CONFLICT ("runId", "workerId") DO UPDATE SET "bootId" = EXCLUDED."bootId", done = EXCLUDED.done, total = EXCLUDED.total,
         unit = EXCLUDED.unit, counters = EXCLUDED.counters, "counterState" = EXCLUDED."counterState", "lastPushAt" = EXCLUDED."lastPushAt"
     )
     INSERT INTO "ProgressSample" ("runId", "workerId", "bootId", ts, done, counters)
     SELECT "runId", "workerId", "bootId", ts, done, counters
       FROM unnest($10::int[], $11::text[], $12::text[], $13::timestamptz[], $14::float8[], $15::jsonb[]) WITH ORDINALITY
         AS s("runId", "workerId", "bootId", ts, done, counters, n) ORDER BY n`,
    [
      rows.map((r) => r.runId),
      rows.map((r) => r.workerId),
      rows.map((r) => r.w.bootId),
      rows.map((r) => r.w.done),
      rows.map((r) => r.w.total),
      rows.map((r) => r.w.unit),
      rows.map((r) => JSON.stringify(r.w.counters)),
      rows.map((r) => JSON.stringify(r.w.counterState)),
      rows.map((r) => r.w.lastPushAt),
      samples.map((x) => x.runId),
      samples.map((x) => x.workerId),
      samples.map((x) => x.bootId),
      samples.map((x) => x.ts),
      samples.map((x) => x.done),
      samples.map((x) => x.counters),
    ],
  );
}

function freshWorker(bootId: string, ts: Date): WorkerRow {
  return {
    bootId,
    done: null,
    total: null,
    unit: null,
    counters: {},
    counterState: {},
    lastPushAt: ts,
  };
}

async function loadWorkers(
  client: pg.PoolClient,
  keys: ReadonlyArray<{ runId: number; workerId: string }>,
): Promise<Map<string, WorkerRow>> {
  const res = await client.query<WorkerRow & { runId: number; workerId: string }>(
    `SELECT w."runId", w."workerId", w."bootId", w.done, w.total, w.unit, w.counters, w."counterState", w."lastPushAt"
       FROM "WorkerProgress" w JOIN unnest($1::int[], $2::text[]) AS k("runId", "workerId") ON w."runId" = k."runId" AND w."workerId" = k."workerId"
      ORDER BY w."runId", w."workerId" FOR UPDATE OF w`,
    [keys.map((k) => k.runId), keys.map((k) => k.workerId)],
  );
  const rows = new Map<string, WorkerRow>();
  for (const { runId, workerId, ...w } of res.rows) rows.set(`${runId}\u0000${workerId}`, w);
  return rows;
}

/**
 * Re-evaluates the invariants of runs over their aggregated counters and raises or clears alerts
 * once per transition (never per push): "deleted locally but never uploaded" (local.deleted >
 * s3.uploaded). Returns true when an alert was raised or cleared.
 */
export async function checkRunInvariants(
  client: pg.PoolClient,
  runIds: readonly number[],
  at: Date,
): Promise<boolean> {
  if (runIds.length === 0) return false;
  // One round trip for the runs' alerts and their workers. The run rows are already locked by
  // this transaction (apply.ts locks every stored run it writes to; a run started in it is its own).
  const res = await client.query<{
    id: number;
    activeAlerts: string[] | null;
    workers: Array<{
      workerId: string;
      done: number | null;
      total: number | null;
      counters: Record<string, number>;
      lastPushAt: string;
    }>;
  }>(
    `SELECT r.id, r."activeAlerts",
            COALESCE((SELECT json_agg(json_build_object('workerId', w."workerId", 'done', w.done, 'total', w.total, 'counters', w.counters, 'lastPushAt', w."lastPushAt"))
                        FROM "WorkerProgress" w WHERE w."runId" = r.id), '[]'::json) AS workers
       FROM "Run" r WHERE r.id = ANY($1::int[]) ORDER BY r.id`,
    [runIds],
  );
  let changed = false;
  const code = "deleted_before_upload";
  for (const row of res.rows) {
    const totals = aggregateWorkers(
      row.workers.map((w) => ({ ...w, lastPushMs: Date.parse(w.lastPushAt) })),
    );
    const alert = uploadInvariant(totals.counters);
    const active = new Set(row.activeAlerts ?? []);
    if (alert && !active.has(code)) {
      active.add(code);
      await insertEvent(client, row.id, { level: "error", code, message: alert.message }, at);
    } else if (!alert && active.has(code)) {
      active.delete(code);
      await insertEvent(
        client,
        row.id,
        {
          level: "info",
          code: `${code}_resolved`,
          message: "resolved: every locally deleted file has been uploaded",
        },
        at,
      );
    } else {
      continue;
    }
    await client.query(`UPDATE "Run" SET "activeAlerts" = $2::text[] WHERE id = $1`, [
      row.id,
      [...active],
    ]);
    changed = true;
  }
  return changed;
}
