import type pg from "pg";

import type { PushSubscriptionInput } from "@/lib/api/push";

/**
 * Web Push storage (docs/notifications.md): the browsers that receive pushes (PushSubscription),
 * the action tokens already used (PushActionUse), and named server secrets (ServerSecret: the
 * VAPID key pair, the action-token key), generated once and shared by every app instance.
 */

/**
 * The server secret `name`, made by `generate` on first use. The insert is `ON CONFLICT DO
 * NOTHING` followed by a read, so instances starting together agree on one value.
 */
export async function namedSecret(
  pool: pg.Pool,
  name: string,
  generate: () => string,
): Promise<string> {
  await pool.query(
    `INSERT INTO "ServerSecret" (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
    [name, generate()],
  );
  const res = await pool.query<{ value: string }>(
    `SELECT value FROM "ServerSecret" WHERE name = $1`,
    [name],
  );
  return res.rows[0]!.value;
}

/** A subscription to push to. */
export interface PushTarget {
  id: number;
  userId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * Stores a browser's subscription for person `userId`, made in sign-in session `sessionId` (its
 * sign-out removes it); the same endpoint subscribed again (same device, maybe another person
 * signed in now) replaces the row. @returns its id.
 */
export async function savePushSubscription(
  pool: pg.Pool,
  userId: string,
  input: PushSubscriptionInput,
  at: Date = new Date(),
  sessionId: string | null = null,
): Promise<number> {
  const res = await pool.query<{ id: number }>(
    `INSERT INTO "PushSubscription" ("userId", endpoint, p256dh, auth, "createdAt", "sessionId") VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (endpoint) DO UPDATE SET "userId" = EXCLUDED."userId", p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth, "createdAt" = EXCLUDED."createdAt", "sessionId" = EXCLUDED."sessionId"
     RETURNING id`,
    [userId, input.endpoint, input.keys.p256dh, input.keys.auth, at, sessionId],
  );
  return res.rows[0]!.id;
}

/**
 * Removes what a sign-out of session `sessionId` of person `userId` leaves behind: every
 * subscription made in that session, and the person's subscription for `endpoint` (the signing-out
 * device's own, made in an earlier session) when given. Never another person's.
 * @returns how many rows were removed.
 */
export async function removeSignedOutPushSubscriptions(
  pool: pg.Pool,
  userId: string,
  sessionId: string,
  endpoint?: string,
): Promise<number> {
  const res = await pool.query(
    `DELETE FROM "PushSubscription" WHERE "userId" = $1 AND ("sessionId" = $2 OR endpoint = $3)`,
    [userId, sessionId, endpoint ?? null],
  );
  return res.rowCount ?? 0;
}

/** Removes person `userId`'s subscription with `endpoint`. @returns how many rows (0 or 1). */
export async function removePushSubscription(
  pool: pg.Pool,
  userId: string,
  endpoint: string,
): Promise<number> {
  const res = await pool.query(
    `DELETE FROM "PushSubscription" WHERE "userId" = $1 AND endpoint = $2`,
    [userId, endpoint],
  );
  return res.rowCount ?? 0;
}

/** Subscriptions of the people who may decide: approvers and admins whose account is enabled. */
export async function deciderSubscriptions(pool: pg.Pool): Promise<PushTarget[]> {
  const res = await pool.query<PushTarget>(
    `SELECT s.id, s."userId", s.endpoint, s.p256dh, s.auth FROM "PushSubscription" s JOIN "User" u ON u.id = s."userId"
     WHERE u.role IN ('approver', 'admin') AND u."disabledAt" IS NULL ORDER BY s.id`,
  );
  return res.rows;
}

/** Records how a push to subscription `id` went: accepted (stamp it) or gone (delete it). */
export async function recordPushOutcome(
  pool: pg.Pool,
  id: number,
  outcome: "sent" | "gone",
  at: Date = new Date(),
): Promise<void> {
  if (outcome === "gone") await pool.query(`DELETE FROM "PushSubscription" WHERE id = $1`, [id]);
  else await pool.query(`UPDATE "PushSubscription" SET "lastPushAt" = $2 WHERE id = $1`, [id, at]);
}

/**
 * Marks action token `jti` used (and forgets used tokens past their expiry).
 * @returns false when it was used before.
 */
export async function consumeActionToken(
  pool: pg.Pool,
  use: { jti: string; userId: string; expiresAt: Date },
  at: Date = new Date(),
): Promise<boolean> {
  await pool.query(`DELETE FROM "PushActionUse" WHERE "expiresAt" < $1`, [at]);
  const res = await pool.query(
    `INSERT INTO "PushActionUse" (jti, "userId", "usedAt", "expiresAt") VALUES ($1, $2, $3, $4) ON CONFLICT (jti) DO NOTHING`,
    [use.jti, use.userId, at, use.expiresAt],
  );
  return res.rowCount === 1;
}

/** The person an action token names, as the decision needs them; null when unknown. */
export async function actionPerson(
  pool: pg.Pool,
  userId: string,
): Promise<{ name: string; role: string; disabled: boolean } | null> {
  const res = await pool.query<{ name: string; role: string; disabled: boolean }>(
    `SELECT name, role::text AS role, ("disabledAt" IS NOT NULL) AS disabled FROM "User" WHERE id = $1`,
    [userId],
  );
  return res.rows[0] ?? null;
}
