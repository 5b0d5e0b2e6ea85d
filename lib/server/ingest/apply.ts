import type pg from "pg";
import {
  toJsonSafe,
  type BenchmarkPoint,
  type ClientFrame,
  type ErrorCode,
  type RunEndFrame,
  type RunStartFrame,
} from "@/lib/protocol";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";
import { LIVE_CHANNEL, type LiveChange } from "@/lib/protocol/live";

/**
 * Applies validated frames to PostgreSQL in one transaction per batch.
 *
 * Delivery is at-least-once: workers resend unacknowledged frames after reconnecting. We make
 * it effectively exactly-once by recording every committed frame id per host in
 * "IngestedFrame" *in the same transaction* as its effects. The id rows are inserted first with
 * ON CONFLICT DO NOTHING: if another connection is committing the same id concurrently, our
 * insert waits for it and then reports the id as taken, so the frame is applied exactly once.
 *
 * Benchmark points from consecutive frames are written with one multi-row
 * `INSERT ... SELECT FROM unnest(...) ON CONFLICT DO UPDATE` (latest frame wins per point key).
 * Change notifications are sent with pg_notify inside the transaction, so browsers hear about
 * a change only once it is committed (NOTIFY is delivered at commit).
 */

/** Result of one frame: committed (possibly earlier: `duplicate`) or rejected with a code. */
export type FrameOutcome =
  | { id: string; ok: true; duplicate: boolean }
  | { id: string; ok: false; code: ErrorCode; message: string };

/** Clock, injectable for tests. */
export type Now = () => Date;

interface RunRef {
  id: number;
  key: string;
}

/**
 * Applies `frames` (already validated, in arrival order) for `principal` and returns one outcome
 * per frame in the same order. A frame that cannot apply (e.g. a point for an unknown run) is
 * rejected alone; when Postgres refuses a frame's data, frames are retried one by one so that one
 * bad frame never loses the good ones beside it.
 * @throws the driver's error when the database is unreachable (nothing is committed then).
 */
export async function applyFrames(pool: pg.Pool, principal: TokenPrincipal, frames: ClientFrame[], now: Now = () => new Date()): Promise<FrameOutcome[]> {
  if (frames.length === 0) return [];
  try {
    return await applyBatch(pool, principal, frames, now);
  } catch (err) {
    // Only a frame whose *data* Postgres refused (SQLSTATE class 22 data exception, 23 constraint)
    // is isolated and rejected; anything else (connection lost, server shutting down) propagates
    // so that nothing is acked and the worker resends.
    if (!isDataError(err)) throw err;
    if (frames.length === 1) {
      const frame = frames[0]!;
      return [{ id: frame.id, ok: false, code: "invalid_frame", message: `the database refused this frame: ${(err as Error).message}` }];
    }
    const outcomes: FrameOutcome[] = [];
    for (const frame of frames) outcomes.push(...(await applyFrames(pool, principal, [frame], now)));
    return outcomes;
  }
}

function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

async function applyBatch(pool: pg.Pool, principal: TokenPrincipal, frames: ClientFrame[], now: Now): Promise<FrameOutcome[]> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const outcomes = await applyInTransaction(client, principal, frames, now());
    await client.query("COMMIT");
    return outcomes;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function applyInTransaction(client: pg.PoolClient, principal: TokenPrincipal, frames: ClientFrame[], at: Date): Promise<FrameOutcome[]> {
  const outcomes = new Map<number, FrameOutcome>();

  // 1. Frames that reference runs must name a run that exists or is started earlier in the batch.
  const referenced = new Set<string>();
  for (const f of frames) if (f.type === "run.benchmark" || f.type === "run.end") referenced.add(f.run);
  const runs = await loadRuns(client, [...referenced]);
  const startedInBatch = new Set<string>();
  const accepted: number[] = [];
  const seenIds = new Set<string>();
  frames.forEach((f, i) => {
    if (seenIds.has(f.id)) {
      outcomes.set(i, { id: f.id, ok: true, duplicate: true });
      return;
    }
    seenIds.add(f.id);
    if (f.type === "run.start") startedInBatch.add(f.run);
    if ((f.type === "run.benchmark" || f.type === "run.end") && !runs.has(f.run) && !startedInBatch.has(f.run)) {
      outcomes.set(i, { id: f.id, ok: false, code: "unknown_run", message: `run '${f.run}' has not been started (send run.start first)` });
      return;
    }
    accepted.push(i);
  });

  // 2. Claim frame ids; those already claimed were committed before: ack without applying.
  const claimed = await claimFrameIds(client, principal.hostId, accepted.map((i) => frames[i]!.id));
  const toApply: number[] = [];
  for (const i of accepted) {
    const f = frames[i]!;
    if (claimed.has(f.id)) toApply.push(i);
    else outcomes.set(i, { id: f.id, ok: true, duplicate: true });
  }

  // 3. Apply in order; consecutive benchmark frames are written as one multi-row upsert.
  const changes = new Map<string, LiveChange>();
  let pendingPoints: Array<{ runId: number; point: BenchmarkPoint }> = [];
  const flushPoints = async () => {
    if (pendingPoints.length === 0) return;
    await upsertPoints(client, pendingPoints, at);
    pendingPoints = [];
  };
  for (const i of toApply) {
    const f = frames[i]!;
    switch (f.type) {
      case "hello":
        break;
      case "heartbeat":
        await client.query(
          `UPDATE "Host" SET "lastHeartbeatAt" = $2, "heartbeatIntervalS" = COALESCE($3, "heartbeatIntervalS"), facts = COALESCE($4::jsonb, facts) WHERE id = $1`,
          [principal.hostId, f.ts ? new Date(f.ts) : at, f.intervalS ?? null, f.facts ? JSON.stringify(toJsonSafe(f.facts)) : null],
        );
        changes.set("hosts", { topic: "hosts" });
        break;
      case "run.start": {
        await flushPoints();
        const run = await upsertRun(client, principal, f, at);
        runs.set(f.run, run);
        changes.set("runs", { topic: "runs" });
        changes.set(`run:${run.id}`, { topic: `run:${run.id}` });
        break;
      }
      case "run.benchmark": {
        const run = runs.get(f.run)!;
        for (const point of f.points) pendingPoints.push({ runId: run.id, point });
        await touchRun(client, run.id, at);
        changes.set(`run:${run.id}`, { topic: `run:${run.id}` });
        changes.set("runs", { topic: "runs" });
        break;
      }
      case "run.end": {
        await flushPoints();
        const run = runs.get(f.run)!;
        await endRun(client, run.id, f, at);
        changes.set("runs", { topic: "runs" });
        changes.set(`run:${run.id}`, { topic: `run:${run.id}` });
        break;
      }
    }
    outcomes.set(i, { id: f.id, ok: true, duplicate: false });
  }
  await flushPoints();

  for (const change of changes.values()) {
    await client.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, JSON.stringify(change)]);
  }
  return frames.map((_, i) => outcomes.get(i)!);
}

async function loadRuns(client: pg.PoolClient, keys: string[]): Promise<Map<string, RunRef>> {
  const map = new Map<string, RunRef>();
  if (keys.length === 0) return map;
  const res = await client.query<RunRef>(`SELECT id, key FROM "Run" WHERE key = ANY($1::text[])`, [keys]);
  for (const row of res.rows) map.set(row.key, row);
  return map;
}

/** Inserts id rows; returns the ids this transaction newly claimed. */
async function claimFrameIds(client: pg.PoolClient, hostId: number, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const res = await client.query<{ frameId: string }>(
    `INSERT INTO "IngestedFrame" ("hostId", "frameId")
     SELECT $1, unnest($2::text[])
     ON CONFLICT DO NOTHING
     RETURNING "frameId"`,
    [hostId, ids],
  );
  return new Set(res.rows.map((r) => r.frameId));
}

async function ensureHost(client: pg.PoolClient, name: string): Promise<number> {
  // A non-empty DO UPDATE makes this a single race-free statement that always returns the id.
  const res = await client.query<{ id: number }>(
    `INSERT INTO "Host" (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
    [name],
  );
  return res.rows[0]!.id;
}

async function upsertRun(client: pg.PoolClient, principal: TokenPrincipal, f: RunStartFrame, at: Date): Promise<RunRef> {
  const hostId = f.host && f.host !== principal.hostName ? await ensureHost(client, f.host) : principal.hostId;
  const res = await client.query<RunRef>(
    `INSERT INTO "Run" (key, name, kind, status, "hostId", config, tags, notes, "startedAt", "lastPushAt")
     VALUES ($1, $2, $3::"RunKind", 'running', $4, $5::jsonb, $6::text[], $7, $8, $9)
     ON CONFLICT (key) DO UPDATE SET
       name = EXCLUDED.name, kind = EXCLUDED.kind, status = 'running', "endedAt" = NULL, error = NULL,
       "hostId" = EXCLUDED."hostId", config = EXCLUDED.config, tags = EXCLUDED.tags,
       notes = COALESCE(EXCLUDED.notes, "Run".notes), "startedAt" = EXCLUDED."startedAt", "lastPushAt" = EXCLUDED."lastPushAt"
     RETURNING id, key`,
    [
      f.run,
      f.name,
      f.kind,
      hostId,
      JSON.stringify(toJsonSafe(f.config ?? {})),
      f.tags ?? [],
      f.notes ?? null,
      f.startedAt ? new Date(f.startedAt) : at,
      at,
    ],
  );
  return res.rows[0]!;
}

async function touchRun(client: pg.PoolClient, runId: number, at: Date): Promise<void> {
  await client.query(`UPDATE "Run" SET "lastPushAt" = GREATEST("lastPushAt", $2) WHERE id = $1`, [runId, at]);
}

async function endRun(client: pg.PoolClient, runId: number, f: RunEndFrame, at: Date): Promise<void> {
  await client.query(
    `UPDATE "Run" SET status = $2::"RunStatus", "endedAt" = $3, error = $4, "lastPushAt" = GREATEST("lastPushAt", $5) WHERE id = $1`,
    [runId, f.status, f.endedAt ? new Date(f.endedAt) : at, f.error ?? null, at],
  );
}

/** Column name, Postgres array type, and how to read it from a point. */
type Column = readonly [name: string, pgType: string, read: (p: BenchmarkPoint, ord: number) => unknown];

const num = (v: number | null | undefined) => (v === undefined ? null : v);

const POINT_COLUMNS: readonly Column[] = [
  ["key", "text", (p) => p.key],
  ["ord", "int4", (p, ord) => p.ord ?? ord],
  ["scenario", "text", (p) => p.scenario],
  ["dataset", "text", (p) => p.dataset ?? null],
  ["concurrency", "int4", (p) => num(p.concurrency)],
  ["measuredConcurrency", "float8", (p) => num(p.measuredConcurrency)],
  ["requestRate", "float8", (p) => num(p.requestRate)],
  ["requestRateUnbounded", "bool", (p) => p.requestRateUnbounded ?? false],
  ["inputLen", "int4", (p) => num(p.inputLen)],
  ["outputLen", "int4", (p) => num(p.outputLen)],
  ["completed", "int4", (p) => num(p.completed)],
  ["failed", "int4", (p) => num(p.failed)],
  ["durationS", "float8", (p) => num(p.durationS)],
  ["requestThroughput", "float8", (p) => num(p.requestThroughput)],
  ["outputTokPerS", "float8", (p) => num(p.outputTokPerS)],
  ["totalTokPerS", "float8", (p) => num(p.totalTokPerS)],
  ["ttftMsMean", "float8", (p) => num(p.ttftMsMean)],
  ["ttftMsMedian", "float8", (p) => num(p.ttftMsMedian)],
  ["ttftMsP99", "float8", (p) => num(p.ttftMsP99)],
  ["tpotMsMean", "float8", (p) => num(p.tpotMsMean)],
  ["tpotMsMedian", "float8", (p) => num(p.tpotMsMedian)],
  ["tpotMsP99", "float8", (p) => num(p.tpotMsP99)],
  ["itlMsMean", "float8", (p) => num(p.itlMsMean)],
  ["itlMsMedian", "float8", (p) => num(p.itlMsMedian)],
  ["itlMsP99", "float8", (p) => num(p.itlMsP99)],
  ["e2eMsMean", "float8", (p) => num(p.e2eMsMean)],
  ["e2eMsMedian", "float8", (p) => num(p.e2eMsMedian)],
  ["e2eMsP99", "float8", (p) => num(p.e2eMsP99)],
  ["acceptLength", "float8", (p) => num(p.acceptLength)],
  ["raw", "jsonb", (p) => JSON.stringify(toJsonSafe(p.raw ?? {}))],
];

const UPSERT_POINTS_SQL = (() => {
  const cols = POINT_COLUMNS.map(([name]) => `"${name}"`);
  const params = POINT_COLUMNS.map(([, type], i) => `$${i + 3}::${type}[]`);
  const updates = POINT_COLUMNS.filter(([name]) => name !== "key")
    .map(([name]) => `"${name}" = EXCLUDED."${name}"`)
    .join(", ");
  return `INSERT INTO "BenchmarkPoint" ("runId", "updatedAt", ${cols.join(", ")})
    SELECT $1::int4, $2::timestamptz, * FROM unnest(${params.join(", ")})
    ON CONFLICT ("runId", key) DO UPDATE SET ${updates}, "updatedAt" = EXCLUDED."updatedAt"`;
})();

/**
 * Upserts points with one statement per run. Within one statement a key may appear only once
 * (Postgres refuses to update a row twice), so the latest occurrence of a key wins here too.
 */
async function upsertPoints(client: pg.PoolClient, items: Array<{ runId: number; point: BenchmarkPoint }>, at: Date): Promise<void> {
  const byRun = new Map<number, Map<string, { point: BenchmarkPoint; ord: number }>>();
  items.forEach(({ runId, point }, ord) => {
    let points = byRun.get(runId);
    if (!points) byRun.set(runId, (points = new Map()));
    points.delete(point.key);
    points.set(point.key, { point, ord });
  });
  for (const [runId, points] of byRun) {
    const rows = [...points.values()];
    const arrays = POINT_COLUMNS.map(([, , read]) => rows.map(({ point, ord }) => read(point, ord)));
    await client.query(UPSERT_POINTS_SQL, [runId, at, ...arrays]);
  }
}
