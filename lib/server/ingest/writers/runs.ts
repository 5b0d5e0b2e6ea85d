import type pg from "pg";

import {
  toJsonSafe,
  type HeartbeatFrame,
  type RunArtifactFrame,
  type RunEndFrame,
  type RunEventFrame,
  type RunStartFrame,
} from "@/lib/protocol";
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
export async function loadRuns(
  client: pg.PoolClient,
  keys: string[],
): Promise<Map<string, StoredRun>> {
  const map = new Map<string, StoredRun>();
  if (keys.length === 0) return map;
  const res = await client.query<{
    id: number;
    key: string;
    ownerHostId: number;
    ownerHost: string;
  }>(
    `SELECT r.id, r.key, r."ownerHostId", h.name AS "ownerHost" FROM "Run" r JOIN "Host" h ON h.id = r."ownerHostId" WHERE r.key = ANY($1::text[]) ORDER BY r.id FOR NO KEY UPDATE OF r`,
    [keys],
  );
  for (const row of res.rows)
    map.set(row.key, {
      id: row.id,
      key: row.key,
      owner: { hostId: row.ownerHostId, hostName: row.ownerHost },
    });
  return map;
}

/**
 * Inserts frame-id rows of any number of hosts in one statement; returns the (host, id) pairs this
 * transaction newly claimed (see apply.ts).
 */
export async function claimFrameIds(
  client: pg.PoolClient,
  frames: ReadonlyArray<{ hostId: number; frameId: string }>,
): Promise<Array<{ hostId: number; frameId: string }>> {
  if (frames.length === 0) return [];
  const res = await client.query<{ hostId: number; frameId: string }>(
    `INSERT INTO "IngestedFrame" ("hostId", "frameId")
     SELECT * FROM unnest($1::int[], $2::text[])
     ON CONFLICT DO NOTHING
     RETURNING "hostId", "frameId"`,
    [frames.map((f) => f.hostId), frames.map((f) => f.frameId)],
  );
  return res.rows;
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
export async function upsertRun(
  client: pg.PoolClient,
  principal: TokenPrincipal,
  f: RunStartFrame,
  at: Date,
): Promise<RunRef | null> {
  const hostId =
    f.host && f.host !== principal.hostName ? await ensureHost(client, f.host) : principal.hostId;
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
export async function releaseFrameIds(
  client: pg.PoolClient,
  hostId: number,
  ids: string[],
): Promise<void> {
  if (ids.length)
    await client.query(
      `DELETE FROM "IngestedFrame" WHERE "hostId" = $1 AND "frameId" = ANY($2::text[])`,
      [hostId, ids],
    );
}

/** Records that runs received a push now (drives "last update" and staleness); one statement. */
export async function touchRuns(client: pg.PoolClient, runIds: number[], at: Date): Promise<void> {
  if (runIds.length)
    await client.query(
      `UPDATE "Run" SET "lastPushAt" = GREATEST("lastPushAt", $2) WHERE id = ANY($1::int[])`,
      [runIds, at],
    );
}

/** Stores a run's final status, exit code and output tail. */
export async function endRun(
  client: pg.PoolClient,
  runId: number,
  f: RunEndFrame,
  at: Date,
): Promise<void> {
  let tail = f.outputTail?.join("\n") ?? null;
  if (tail && tail.length > OUTPUT_TAIL_MAX_CHARS) tail = tail.slice(-OUTPUT_TAIL_MAX_CHARS);
  await client.query(
    `UPDATE "Run" SET status = $2::"RunStatus", "endedAt" = $3, error = $4, "exitCode" = $5,
       "outputTail" = COALESCE($6, "outputTail"), "lastPushAt" = GREATEST("lastPushAt", $7) WHERE id = $1`,
    [
      runId,
      f.status,
      f.endedAt ? new Date(f.endedAt) : at,
      f.error ?? null,
      f.exitCode ?? null,
      tail,
      at,
    ],
  );
}

/** Upserts an artifact by (run, uri). */
export async function upsertArtifact(
  client: pg.PoolClient,
  runId: number,
  f: RunArtifactFrame,
  at: Date,
): Promise<void> {
  await client.query(
    `INSERT INTO "Artifact" ("runId", kind, uri, "sizeBytes", step, ts) VALUES ($1, $2, $3, $4, $5::int8, $6)
     ON CONFLICT ("runId", uri) DO UPDATE SET kind = EXCLUDED.kind, "sizeBytes" = EXCLUDED."sizeBytes", step = EXCLUDED.step, ts = EXCLUDED.ts`,
    [
      runId,
      f.kind,
      f.uri,
      f.sizeBytes ?? null,
      f.step === undefined ? null : String(f.step),
      f.ts ? new Date(f.ts) : at,
    ],
  );
}

/** Lines of a run's output tail the server keeps (with OUTPUT_TAIL_MAX_CHARS). */
const OUTPUT_TAIL_MAX_LINES = 200;

/**
 * Appends `run.output` lines to a run's output tail, keeping its last 200 lines and 64 KiB (the
 * oldest characters are cut when longer), and moves lastPushAt; one statement.
 */
export async function appendOutput(
  client: pg.PoolClient,
  runId: number,
  lines: readonly string[],
  at: Date,
): Promise<void> {
  await client.query(
    `UPDATE "Run" r SET "outputTail" = (
       SELECT right(string_agg(t.l, E'\\n' ORDER BY t.i), $4)
         FROM (SELECT l, i FROM unnest(string_to_array(concat_ws(E'\\n', r."outputTail", $2::text), E'\\n'))
                 WITH ORDINALITY AS u(l, i) ORDER BY i DESC LIMIT $3) t),
       "lastPushAt" = GREATEST("lastPushAt", $5)
     WHERE id = $1`,
    [runId, lines.join("\n"), OUTPUT_TAIL_MAX_LINES, OUTPUT_TAIL_MAX_CHARS, at],
  );
}

/** An event of a run: a worker log line, or a server alert when `code` is set (`ts` epoch ms, default the receive time). */
export interface EventWrite {
  runId: number;
  event: Pick<RunEventFrame, "level" | "message"> & { code?: string; ts?: number };
}

/** Appends an event to a run (worker log line, or a server alert when `code` is set). */
export async function insertEvent(
  client: pg.PoolClient,
  runId: number,
  e: EventWrite["event"],
  at: Date,
): Promise<void> {
  await insertEvents(client, [{ runId, event: e }], at);
}

/** Appends events (of any runs) in one statement; their ids follow the array's order. */
export async function insertEvents(
  client: pg.PoolClient,
  events: readonly EventWrite[],
  at: Date,
): Promise<void> {
  if (events.length === 0) return;
  await client.query(
    `INSERT INTO "RunEvent" ("runId", level, message, code, ts)
     SELECT "runId", level, message, code, ts FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) WITH ORDINALITY
       AS e("runId", level, message, code, ts, n) ORDER BY n`,
    [
      events.map((e) => e.runId),
      events.map((e) => e.event.level),
      events.map((e) => e.event.message),
      events.map((e) => e.event.code ?? null),
      events.map((e) => (e.event.ts ? new Date(e.event.ts) : at)),
    ],
  );
}

/** A heartbeat frame and the host of the token that sent it. */
export interface HeartbeatWrite {
  hostId: number;
  frame: HeartbeatFrame;
}

/**
 * Records heartbeats of any hosts: host liveness, latest facts, and a sample for the host charts
 * (samples older than HOST_SAMPLE_RETENTION are dropped). One statement (data-modifying CTEs)
 * for all of them. Several heartbeats of one host fold as if applied in order: the latest time,
 * the last interval and facts given, one sample each (the first of equal times wins).
 */
export async function recordHeartbeats(
  client: pg.PoolClient,
  heartbeats: readonly HeartbeatWrite[],
  at: Date,
): Promise<void> {
  if (heartbeats.length === 0) return;
  const hosts = new Map<number, { ts: Date; intervalS: number | null; facts: string | null }>();
  const samples: Array<{ hostId: number; ts: Date; facts: string }> = [];
  for (const { hostId, frame: f } of heartbeats) {
    const ts = f.ts ? new Date(f.ts) : at;
    const facts = f.facts ? JSON.stringify(toJsonSafe(f.facts)) : null;
    const h = hosts.get(hostId);
    if (!h) hosts.set(hostId, { ts, intervalS: f.intervalS ?? null, facts });
    else {
      if (ts > h.ts) h.ts = ts;
      h.intervalS = f.intervalS ?? h.intervalS;
      h.facts = facts ?? h.facts;
    }
    if (facts !== null) samples.push({ hostId, ts, facts });
  }
  const ids = [...hosts.keys()].sort((a, b) => a - b);
  const rows = ids.map((id) => hosts.get(id)!);
  // The CTEs share one snapshot: the DELETE cannot see the samples inserted beside it, so a
  // sample already past retention is not inserted at all.
  await client.query(
    `WITH hb AS (
       SELECT * FROM unnest($1::int[], $2::timestamptz[], $3::int[], $4::jsonb[]) AS hb(id, ts, "intervalS", facts)
     ), host AS (
       UPDATE "Host" h SET "lastHeartbeatAt" = GREATEST(COALESCE(h."lastHeartbeatAt", hb.ts), hb.ts),
         "heartbeatIntervalS" = COALESCE(hb."intervalS", h."heartbeatIntervalS"), facts = COALESCE(hb.facts, h.facts)
         FROM hb WHERE h.id = hb.id RETURNING h.id
     ), sample AS (
       INSERT INTO "HostSample" ("hostId", ts, facts)
       SELECT * FROM unnest($5::int[], $6::timestamptz[], $7::jsonb[]) AS s("hostId", ts, facts)
        WHERE s.ts >= $8::timestamptz - interval '${HOST_SAMPLE_RETENTION}' ON CONFLICT DO NOTHING
     )
     DELETE FROM "HostSample" WHERE "hostId" = ANY($5::int[]) AND ts < $8::timestamptz - interval '${HOST_SAMPLE_RETENTION}'`,
    [
      ids,
      rows.map((h) => h.ts),
      rows.map((h) => h.intervalS),
      rows.map((h) => h.facts),
      samples.map((s) => s.hostId),
      samples.map((s) => s.ts),
      samples.map((s) => s.facts),
      at,
    ],
  );
}
