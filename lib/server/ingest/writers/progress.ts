import type pg from "pg";
import type { RunProgressFrame } from "@/lib/protocol";
import { accumulateCounter, aggregateWorkers, counterTotal, isGaugeCounter, type CounterState } from "@/lib/metrics/progress";
import { uploadInvariant } from "@/lib/metrics/invariants";
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

/** Per-batch cache of worker rows, so several pushes of one worker in a batch chain correctly. */
export type WorkerCache = Map<string, WorkerRow>;

/**
 * Applies one `run.progress`: folds the worker's per-boot cumulative counters into monotonic
 * totals (a restart that drops a counter never lowers the run total), stores the worker's
 * position, and appends a sample for windowed rates and the "over time" charts.
 * The worker row is locked (FOR UPDATE) so concurrent batches for one worker serialise.
 */
export async function applyProgress(client: pg.PoolClient, runId: number, f: RunProgressFrame, at: Date, cache: WorkerCache): Promise<void> {
  const id = `${runId}\u0000${f.workerId}`;
  const w = cache.get(id) ?? (await loadWorker(client, runId, f.workerId)) ?? freshWorker(f.bootId, f.ts ? new Date(f.ts) : at);
  const ts = f.ts ? new Date(f.ts) : at;
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
  cache.set(id, w);

  // One round trip: the worker's row and the sample in one statement.
  await client.query(
    `WITH worker AS (
       INSERT INTO "WorkerProgress" ("runId", "workerId", "bootId", done, total, unit, counters, "counterState", "lastPushAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9)
       ON CONFLICT ("runId", "workerId") DO UPDATE SET "bootId" = EXCLUDED."bootId", done = EXCLUDED.done, total = EXCLUDED.total,
         unit = EXCLUDED.unit, counters = EXCLUDED.counters, "counterState" = EXCLUDED."counterState", "lastPushAt" = EXCLUDED."lastPushAt"
     )
     INSERT INTO "ProgressSample" ("runId", "workerId", "bootId", ts, done, counters) VALUES ($1, $2, $3, $10, $11, $7::jsonb)`,
    [runId, f.workerId, w.bootId, w.done, w.total, w.unit, JSON.stringify(w.counters), JSON.stringify(w.counterState), w.lastPushAt, ts, f.done ?? null],
  );
}

function freshWorker(bootId: string, ts: Date): WorkerRow {
  return { bootId, done: null, total: null, unit: null, counters: {}, counterState: {}, lastPushAt: ts };
}

async function loadWorker(client: pg.PoolClient, runId: number, workerId: string): Promise<WorkerRow | null> {
  const res = await client.query<WorkerRow>(
    `SELECT "bootId", done, total, unit, counters, "counterState", "lastPushAt" FROM "WorkerProgress"
     WHERE "runId" = $1 AND "workerId" = $2 FOR UPDATE`,
    [runId, workerId],
  );
  return res.rows[0] ?? null;
}

/**
 * Re-evaluates a run's invariants over its aggregated counters and raises or clears alerts once
 * per transition (never per push): "deleted locally but never uploaded" (local.deleted >
 * s3.uploaded). Returns true when an alert was raised or cleared.
 */
export async function checkRunInvariants(client: pg.PoolClient, runId: number, at: Date): Promise<boolean> {
  // One round trip for the run's alerts and its workers. The run row is already locked by this
  // transaction (apply.ts locks every stored run it writes to; a run started in it is its own).
  const res = await client.query<{ activeAlerts: string[] | null; workers: Array<{ workerId: string; done: number | null; total: number | null; counters: Record<string, number>; lastPushAt: string }> }>(
    `SELECT r."activeAlerts",
            COALESCE((SELECT json_agg(json_build_object('workerId', w."workerId", 'done', w.done, 'total', w.total, 'counters', w.counters, 'lastPushAt', w."lastPushAt"))
                        FROM "WorkerProgress" w WHERE w."runId" = r.id), '[]'::json) AS workers
       FROM "Run" r WHERE r.id = $1`,
    [runId],
  );
  const row = res.rows[0];
  const totals = aggregateWorkers((row?.workers ?? []).map((w) => ({ ...w, lastPushMs: Date.parse(w.lastPushAt) })));
  const alert = uploadInvariant(totals.counters);
  const active = new Set(row?.activeAlerts ?? []);
  const code = "deleted_before_upload";
  if (alert && !active.has(code)) {
    active.add(code);
    await insertEvent(client, runId, { level: "error", code, message: alert.message }, at);
  } else if (!alert && active.has(code)) {
    active.delete(code);
    await insertEvent(client, runId, { level: "info", code: `${code}_resolved`, message: "resolved: every locally deleted file has been uploaded" }, at);
  } else {
    return false;
  }
  await client.query(`UPDATE "Run" SET "activeAlerts" = $2::text[] WHERE id = $1`, [runId, [...active]]);
  return true;
}
