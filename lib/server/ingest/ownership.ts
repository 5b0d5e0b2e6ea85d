import type pg from "pg";

import type { ClientFrame } from "@/lib/protocol";
import {
  mayChange,
  notOwnerMessage,
  type OwnedKind,
  type Owner,
} from "@/lib/server/auth/ownership";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";

import type { StoredRun } from "./writers/runs";

/** Decides one frame of a batch: null when the token may apply it, else the `forbidden` message. */
export type OwnershipCheck = (frame: ClientFrame) => string | null;

/**
 * Loads the owners of the existing agent sessions and plans that `frames` would change (runs
 * come with their owners from loadRuns) and returns the per-frame check: run.start re-sent for
 * an existing run, every run-scoped frame (points, progress, metrics, artifacts, events, end,
 * evals), session.todos, session.activity, baseline.upsert and plan.propose (a re-send or edit;
 * a decided plan's re-send would also hand over its decision) are refused when another host owns the target and the token is not
 * shared. Rows created earlier in the same batch belong to this token (a batch has one token).
 * Runs the queries inside the batch's transaction, before frame ids are claimed, so a refused
 * frame leaves no trace and may be re-sent with another token.
 */
export async function loadOwnershipCheck(
  client: pg.PoolClient,
  principal: TokenPrincipal,
  frames: ClientFrame[],
  runs: ReadonlyMap<string, StoredRun>,
): Promise<OwnershipCheck> {
  if (principal.shared) return () => null;
  const sessionKeys = [
    ...new Set(
      frames.flatMap((f) =>
        f.type === "session.todos" || f.type === "session.activity" ? [f.session] : [],
      ),
    ),
  ];
  const planKeys = [...new Set(frames.flatMap((f) => (f.type === "plan.propose" ? [f.plan] : [])))];
  const baselineNames = [
    ...new Set(frames.flatMap((f) => (f.type === "baseline.upsert" ? [f.name] : []))),
  ];
  // Sequential: the queries share the batch's one connection.
  const sessions = await loadOwners(
    client,
    `SELECT s.key, s."ownerHostId" AS "hostId", h.name AS "hostName" FROM "AgentSession" s LEFT JOIN "Host" h ON h.id = s."ownerHostId" WHERE s.key = ANY($1::text[])`,
    sessionKeys,
  );
  const plans = await loadOwners(
    client,
    `SELECT p.key, p."hostId", h.name AS "hostName" FROM "Plan" p JOIN "Host" h ON h.id = p."hostId" WHERE p.key = ANY($1::text[])`,
    planKeys,
  );
  const baselines = await loadOwners(
    client,
    `SELECT b.name AS key, b."ownerHostId" AS "hostId", h.name AS "hostName" FROM "Baseline" b LEFT JOIN "Host" h ON h.id = b."ownerHostId" WHERE b.name = ANY($1::text[])`,
    baselineNames,
  );
  const check = (kind: OwnedKind, key: string, owner: Owner | undefined) =>
    owner && !mayChange(principal, owner) ? notOwnerMessage(kind, key, owner, principal) : null;
  return (f) => {
    if (f.type === "session.todos" || f.type === "session.activity")
      return check("session", f.session, sessions.get(f.session));
    if (f.type === "baseline.upsert") return check("baseline", f.name, baselines.get(f.name));
    if (f.type === "plan.propose") return check("plan", f.plan, plans.get(f.plan));
    if ("run" in f && typeof f.run === "string") return check("run", f.run, runs.get(f.run)?.owner);
    return null;
  };
}

async function loadOwners(
  client: pg.PoolClient,
  sql: string,
  keys: string[],
): Promise<Map<string, Owner>> {
  const owners = new Map<string, Owner>();
  if (keys.length === 0) return owners;
  const res = await client.query<{ key: string } & Owner>(sql, [keys]);
  for (const row of res.rows) owners.set(row.key, { hostId: row.hostId, hostName: row.hostName });
  return owners;
}
