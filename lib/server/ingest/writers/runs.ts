import type pg from "pg";
import { toJsonSafe, type HeartbeatFrame, type RunArtifactFrame, type RunEndFrame, type RunEventFrame, type RunStartFrame } from "@/lib/protocol";
import type { Owner } from "@/lib/server/auth/ownership";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";
import { ensureHost, ensureSession } from "./refs";

/** A run as the ingest path knows it (`sessionId`: the agent session that started it). */
export interface RunRef {
  id: number;
  key: string;
  sessionId?: number | null;
}

/** A stored run with its owner (the host of the token that created it). */
export interface StoredRun extends RunRef {
  owner: Owner;
}

/** Output tail kept per run: the last 200 lines, at most 64 KiB. */
const OUTPUT_TAIL_MAX_CHARS = 64 * 1024;
/** Host samples are kept this long (the host page charts the last hour). */
const HOST_SAMPLE_RETENTION = "24 hours";

/**
 * Looks up runs by client key, with their owners, and locks them (FOR NO KEY UPDATE, taken in id
 * order: batches writing to the same runs queue behind each other instead of deadlocking on row
 * locks taken mid-way; the foreign keys of inserted rows take KEY SHARE locks on their run in
 * frame order). Lookup and lock are one round trip.
 */
export async function loadRuns(client: pg.PoolClient, keys: string[]): Promise<Map<string, StoredRun>> {
  const map = new Map<string, StoredRun>();
  if (keys.length === 0) return map;
  const res = await client.query<{ id: number; key: string; ownerHostId: number; ownerHost: string }>(
    `SELECT r.id, r.key, r."ownerHostId", h.name AS "ownerHost" FROM "Run" r JOIN "Host" h ON h.id = r."ownerHostId" WHERE r.key = ANY($1::text[]) ORDER BY r.id FOR NO KEY UPDATE OF r`,
    [keys],
  );
  for (const row of res.rows) map.set(row.key, { id: row.id, key: row.key, owner: { hostId: row.ownerHostId, hostName: row.ownerHost } });
  return map;
}

/** Inserts frame-id rows; returns the ids this transaction newly claimed (see apply.ts). */
export async function claimFrameIds(client: pg.PoolClient, hostId: number, ids: string[]): Promise<Set<string>> {
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

/**
 * Creates the run (owned by the token's host, whatever its `host` label) or, for a known key,
 * updates it and marks it running again (its owner never changes; apply.ts checks the token may
 * change it). Returns null, changing nothing, when the key belongs to another host and the token
 * is not shared: that happens when another host created the key after this batch's ownership
 * check (two hosts racing to create one key), and the caller refuses the frame. Name, tags and
 * notes a person edited (`editedAt` set) are kept: a worker re-sending run.start never undoes an
 * edit. Optional fields the re-sent frame leaves out (config, tags, notes, total, unit) keep their
 * stored values.
 */
export async function upsertRun(client: pg.PoolClient, principal: TokenPrincipal, f: RunStartFrame, at: Date): Promise<RunRef | null> {
  const hostId = f.host && f.host !== principal.hostName ? await ensureHost(client, f.host) : principal.hostId;
  // The session may not have pushed its todo list yet: create a bare one to link to.
  const sessionId = f.session ? await ensureSession(client, f.session, principal.hostId, at) : null;
  const res = await client.query<RunRef>(
    `INSERT INTO "Run" (key, name, kind, status, "hostId", config, tags, notes, "startedAt", "lastPushAt", total, unit, "stallAfterS", "sessionId", "ownerHostId")
     VALUES ($1, $2, $3::"RunKind", 'running', $4, COALESCE($5::jsonb, '{}'::jsonb), COALESCE($6::text[], '{}'::text[]), $7, $8, $9, $10, $11, COALESCE($12, 120), $13, $14)
     ON CONFLICT (key) DO UPDATE SET
       name = CASE WHEN "Run"."editedAt" IS NULL THEN EXCLUDED.name ELSE "Run".name END, kind = EXCLUDED.kind, status = 'running', "endedAt" = NULL, error = NULL, "exitCode" = NULL,
       "hostId" = EXCLUDED."hostId", config = COALESCE($5::jsonb, "Run".config),
       tags = CASE WHEN "Run"."editedAt" IS NULL AND $6::text[] IS NOT NULL THEN EXCLUDED.tags ELSE "Run".tags END,
       notes = CASE WHEN "Run"."editedAt" IS NULL THEN COALESCE(EXCLUDED.notes, "Run".notes) ELSE "Run".notes END, "startedAt" = EXCLUDED."startedAt", "lastPushAt" = EXCLUDED."lastPushAt",
       total = COALESCE(EXCLUDED.total, "Run".total), unit = COALESCE(EXCLUDED.unit, "Run".unit),
       "stallAfterS" = CASE WHEN $12::int IS NULL THEN "Run"."stallAfterS" ELSE EXCLUDED."stallAfterS" END,
       "notifiedState" = NULL, "sessionId" = COALESCE(EXCLUDED."sessionId", "Run"."sessionId")
     WHERE $15::boolean OR "Run"."ownerHostId" = EXCLUDED."ownerHostId"
     RETURNING id, key, "sessionId"`,
    [
      f.run,
      f.name,
      f.kind,
      hostId,
      f.config === undefined ? null : JSON.stringify(toJsonSafe(f.config)),
      f.tags ?? null,
      f.notes ?? null,
      f.startedAt ? new Date(f.startedAt) : at,
      at,
      f.total ?? null,
      f.unit ?? null,
      f.stallAfterS ?? null,
      sessionId,
      principal.hostId,
      principal.shared,
    ],
  );
  return res.rows[0] ?? null;
}

/** Deletes frame-id rows this transaction claimed for frames it then refused (they may be sent again). */
export async function releaseFrameIds(client: pg.PoolClient, hostId: number, ids: string[]): Promise<void> {
  if (ids.length) await client.query(`DELETE FROM "IngestedFrame" WHERE "hostId" = $1 AND "frameId" = ANY($2::text[])`, [hostId, ids]);
}

/** Records that a run received a push now (drives "last update" and staleness). */
export async function touchRun(client: pg.PoolClient, runId: number, at: Date): Promise<void> {
  await client.query(`UPDATE "Run" SET "lastPushAt" = GREATEST("lastPushAt", $2) WHERE id = $1`, [runId, at]);
}

/** Stores a run's final status, exit code and output tail. */
export async function endRun(client: pg.PoolClient, runId: number, f: RunEndFrame, at: Date): Promise<void> {
  let tail = f.outputTail?.join("\n") ?? null;
  if (tail && tail.length > OUTPUT_TAIL_MAX_CHARS) tail = tail.slice(-OUTPUT_TAIL_MAX_CHARS);
  await client.query(
    `UPDATE "Run" SET status = $2::"RunStatus", "endedAt" = $3, error = $4, "exitCode" = $5,
       "outputTail" = COALESCE($6, "outputTail"), "lastPushAt" = GREATEST("lastPushAt", $7) WHERE id = $1`,
    [runId, f.status, f.endedAt ? new Date(f.endedAt) : at, f.error ?? null, f.exitCode ?? null, tail, at],
  );
}

/** Upserts an artifact by (run, uri). */
export async function upsertArtifact(client: pg.PoolClient, runId: number, f: RunArtifactFrame, at: Date): Promise<void> {
  await client.query(
    `INSERT INTO "Artifact" ("runId", kind, uri, "sizeBytes", step, ts) VALUES ($1, $2, $3, $4, $5::int8, $6)
     ON CONFLICT ("runId", uri) DO UPDATE SET kind = EXCLUDED.kind, "sizeBytes" = EXCLUDED."sizeBytes", step = EXCLUDED.step, ts = EXCLUDED.ts`,
    [runId, f.kind, f.uri, f.sizeBytes ?? null, f.step === undefined ? null : String(f.step), f.ts ? new Date(f.ts) : at],
  );
}

/** Appends an event to a run (worker log line, or a server alert when `code` is set). */
export async function insertEvent(
  client: pg.PoolClient,
  runId: number,
  e: Pick<RunEventFrame, "level" | "message"> & { code?: string; ts?: number },
  at: Date,
): Promise<void> {
  await client.query(`INSERT INTO "RunEvent" ("runId", level, message, code, ts) VALUES ($1, $2, $3, $4, $5)`, [
    runId,
    e.level,
    e.message,
    e.code ?? null,
    e.ts ? new Date(e.ts) : at,
  ]);
}

/**
 * Records a heartbeat: host liveness, latest facts, and a sample for the host charts (samples
 * older than HOST_SAMPLE_RETENTION are dropped). One statement (data-modifying CTEs), so a
 * heartbeat costs one round trip.
 */
export async function recordHeartbeat(client: pg.PoolClient, hostId: number, f: HeartbeatFrame, at: Date): Promise<void> {
  const ts = f.ts ? new Date(f.ts) : at;
  const facts = f.facts ? JSON.stringify(toJsonSafe(f.facts)) : null;
  // The CTEs share one snapshot: the DELETE cannot see the sample inserted beside it, so a
  // sample already past retention is not inserted at all.
  await client.query(
    `WITH host AS (
       UPDATE "Host" SET "lastHeartbeatAt" = GREATEST(COALESCE("lastHeartbeatAt", $2::timestamptz), $2::timestamptz),
         "heartbeatIntervalS" = COALESCE($3::int, "heartbeatIntervalS"), facts = COALESCE($4::jsonb, facts) WHERE id = $1::int RETURNING id
     ), sample AS (
       INSERT INTO "HostSample" ("hostId", ts, facts) SELECT $1::int, $2::timestamptz, $4::jsonb
        WHERE $4::jsonb IS NOT NULL AND $2::timestamptz >= $5::timestamptz - interval '${HOST_SAMPLE_RETENTION}' ON CONFLICT DO NOTHING
     )
     DELETE FROM "HostSample" WHERE $4::jsonb IS NOT NULL AND "hostId" = $1::int AND ts < $5::timestamptz - interval '${HOST_SAMPLE_RETENTION}'`,
    [hostId, ts, f.intervalS ?? null, facts, at],
  );
}
