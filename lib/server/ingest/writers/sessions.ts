import type pg from "pg";

import { runState } from "@/lib/metrics/staleness";
import {
  toJsonSafe,
  type PlanProposeFrame,
  type SessionActivityFrame,
  type SessionTodosFrame,
} from "@/lib/protocol";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";

import { ensureHost, ensureSession } from "./refs";

/** Default time a plan waits for a decision before it expires: 24 h. */
export const PLAN_DEFAULT_EXPIRY_S = 24 * 3600;

/**
 * Stores one todo-list snapshot: upserts the session (source, title, host label; start =
 * earliest snapshot, last update = latest; owner = the token's host when new or unowned) and the
 * snapshot by (session, seq) — a re-sent snapshot replaces the old one. Returns the session id.
 * apply.ts has checked the token may change the session.
 */
export async function applyTodos(
  client: pg.PoolClient,
  principal: TokenPrincipal,
  f: SessionTodosFrame,
): Promise<number> {
  const ts = new Date(f.ts);
  const hostId = f.host
    ? f.host === principal.hostName
      ? principal.hostId
      : await ensureHost(client, f.host)
    : principal.hostId;
  const session = await client.query<{ id: number }>(
    `INSERT INTO "AgentSession" (key, source, title, "hostId", "ownerHostId", "startedAt", "lastUpdateAt") VALUES ($1, $2, $3, $4, $6, $5, $5)
     ON CONFLICT (key) DO UPDATE SET source = EXCLUDED.source, title = COALESCE(EXCLUDED.title, "AgentSession".title),
       "hostId" = EXCLUDED."hostId", "ownerHostId" = COALESCE("AgentSession"."ownerHostId", EXCLUDED."ownerHostId"), "startedAt" = LEAST("AgentSession"."startedAt", EXCLUDED."startedAt"),
       "lastUpdateAt" = GREATEST("AgentSession"."lastUpdateAt", EXCLUDED."lastUpdateAt")
     RETURNING id`,
    [f.session, f.source, f.title ?? null, hostId, ts, principal.hostId],
  );
  const sessionId = session.rows[0]!.id;
  await client.query(
    `INSERT INTO "TodoSnapshot" ("sessionId", seq, ts, items) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT ("sessionId", seq) DO UPDATE SET ts = EXCLUDED.ts, items = EXCLUDED.items`,
    [sessionId, f.seq, ts, JSON.stringify(toJsonSafe(f.items))],
  );
  return sessionId;
}

/** The project a session works in: the frame's `project`, else the last segment of its cwd. */
function projectOf(f: SessionActivityFrame): string | null {
  if (f.project) return f.project;
  const segment = f.cwd?.split(/[\\/]/).filter(Boolean).at(-1);
  return segment ?? null;
}

/**
 * Stores one `session.activity`: upserts the session; its state moves only when the frame is at
 * least as new as the stored state (spooled frames arriving late never roll it back), and the
 * facts (title, cwd, project, branch, model) fill in or replace what was known; owner = the token's
 * host when new or unowned (apply.ts has checked the token may change the session). Returns the session id.
 */
export async function applyActivity(
  client: pg.PoolClient,
  principal: TokenPrincipal,
  f: SessionActivityFrame,
): Promise<number> {
  const ts = new Date(f.ts);
  const hostId = f.host
    ? f.host === principal.hostName
      ? principal.hostId
      : await ensureHost(client, f.host)
    : principal.hostId;
  const res = await client.query<{ id: number }>(
    `INSERT INTO "AgentSession" (key, source, title, "hostId", "startedAt", "lastUpdateAt", state, "stateAt", "stateDetail", cwd, project, "gitBranch", model, "ownerHostId")
     VALUES ($1, $2, $3, $4, $5, $5, $6, $5, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (key) DO UPDATE SET source = EXCLUDED.source, title = COALESCE(EXCLUDED.title, "AgentSession".title),
       "hostId" = EXCLUDED."hostId", "ownerHostId" = COALESCE("AgentSession"."ownerHostId", EXCLUDED."ownerHostId"), "startedAt" = LEAST("AgentSession"."startedAt", EXCLUDED."startedAt"),
       "lastUpdateAt" = GREATEST("AgentSession"."lastUpdateAt", EXCLUDED."lastUpdateAt"),
       state = CASE WHEN "AgentSession"."stateAt" IS NULL OR EXCLUDED."stateAt" >= "AgentSession"."stateAt" THEN EXCLUDED.state ELSE "AgentSession".state END,
       "stateDetail" = CASE WHEN "AgentSession"."stateAt" IS NULL OR EXCLUDED."stateAt" >= "AgentSession"."stateAt" THEN EXCLUDED."stateDetail" ELSE "AgentSession"."stateDetail" END,
       "stateAt" = GREATEST("AgentSession"."stateAt", EXCLUDED."stateAt"),
       cwd = COALESCE(EXCLUDED.cwd, "AgentSession".cwd), project = COALESCE(EXCLUDED.project, "AgentSession".project),
       "gitBranch" = COALESCE(EXCLUDED."gitBranch", "AgentSession"."gitBranch"), model = COALESCE(EXCLUDED.model, "AgentSession".model)
     RETURNING id`,
    [
      f.session,
      f.source,
      f.title ?? null,
      hostId,
      ts,
      f.state,
      f.detail ?? null,
      f.cwd ?? null,
      projectOf(f),
      f.gitBranch ?? null,
      f.model ?? null,
      principal.hostId,
    ],
  );
  return res.rows[0]!.id;
}

/**
 * A heartbeat's sign of life for agent sessions of this host: their `lastSignalAt` moves to `at`
 * (never back). Unknown keys and other hosts' sessions are skipped. Returns the ids touched.
 */
export async function noteSessionSignal(
  client: pg.PoolClient,
  hostId: number,
  keys: readonly string[],
  at: Date,
): Promise<number[]> {
  const res = await client.query<{ id: number }>(
    `UPDATE "AgentSession" SET "lastSignalAt" = GREATEST(COALESCE("lastSignalAt", $3), $3) WHERE key = ANY($1::text[]) AND "hostId" = $2 RETURNING id`,
    [keys, hostId, at],
  );
  return res.rows.map((r) => r.id);
}

/** Outcome of a proposal: stored (id), or refused because the plan was already decided. */
export type ProposeResult =
  { ok: true; planId: number } | { ok: false; planId: number; status: string };

/**
 * Stores a proposed plan, or updates it while it is still undecided. A decided plan is
 * immutable: proposing under its key again is refused (the proposer gets the decision instead).
 * Records the linked run's state now, to flag later decisions "based on stale state".
 */
export async function proposePlan(
  client: pg.PoolClient,
  principal: TokenPrincipal,
  f: PlanProposeFrame,
  runId: number | null,
  at: Date,
): Promise<ProposeResult> {
  const existing = await client.query<{ id: number; status: string }>(
    `SELECT id, status FROM "Plan" WHERE key = $1 FOR UPDATE`,
    [f.plan],
  );
  const row = existing.rows[0];
  if (row && row.status !== "proposed") return { ok: false, planId: row.id, status: row.status };

  const sessionId = f.session ? await ensureSession(client, f.session, principal.hostId, at) : null;
  let runStateAtProposal: string | null = null;
  if (runId !== null) {
    const r = await client.query<{
      status: "running" | "succeeded" | "failed" | "cancelled" | "ended";
      lastPushAt: Date;
      stallAfterS: number;
    }>(`SELECT status, "lastPushAt", "stallAfterS" FROM "Run" WHERE id = $1`, [runId]);
    const run = r.rows[0];
    if (run)
      runStateAtProposal = runState(
        run.status,
        run.lastPushAt.getTime(),
        run.stallAfterS,
        at.getTime(),
      );
  }
  const expiresAt = new Date(at.getTime() + (f.expiresInS ?? PLAN_DEFAULT_EXPIRY_S) * 1000);
  const res = await client.query<{ id: number }>(
    `INSERT INTO "Plan" (key, "hostId", "sessionId", "runId", title, rationale, items, status, "proposedAt", "expiresAt", "runStateAtProposal", body, supersedes)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, 'proposed', $8, $9, $10, $11, $12)
     ON CONFLICT (key) DO UPDATE SET "sessionId" = EXCLUDED."sessionId", "runId" = EXCLUDED."runId", title = EXCLUDED.title,
       rationale = EXCLUDED.rationale, items = EXCLUDED.items, body = EXCLUDED.body, supersedes = EXCLUDED.supersedes, "proposedAt" = EXCLUDED."proposedAt", "expiresAt" = EXCLUDED."expiresAt",
       "runStateAtProposal" = EXCLUDED."runStateAtProposal", "notifiedAt" = NULL
     RETURNING id`,
    [
      f.plan,
      principal.hostId,
      sessionId,
      runId,
      f.title,
      f.rationale ?? null,
      JSON.stringify(f.items),
      at,
      expiresAt,
      runStateAtProposal,
      f.body ?? null,
      f.supersedes ?? null,
    ],
  );
  return { ok: true, planId: res.rows[0]!.id };
}
