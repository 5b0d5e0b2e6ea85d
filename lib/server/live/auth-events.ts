import { LIVE_CHANNEL } from "@/lib/protocol/live";

/**
 * Credential changes announced to every app instance through the same NOTIFY channel as data
 * changes (LiveHub LISTENs and re-emits them on the in-process bus), so a revocation made on one
 * instance — or by the CLI, which talks to the database directly — closes the affected sockets
 * on all of them at once. These topics are server-only: the hub never forwards them to browsers.
 */

/** Prefix of server-only credential topics. */
const AUTH_PREFIX = "auth:";

/** Topic announcing that worker token `tokenId` was revoked. */
export const tokenRevokedTopic = (tokenId: number): string =>
  `${AUTH_PREFIX}token-revoked:${tokenId}`;

/** Topic announcing that every session of person `userId` ended (account disabled, or a new password set). */
export const userSessionsEndedTopic = (userId: string): string =>
  `${AUTH_PREFIX}user-sessions-ended:${userId}`;

/** A parsed credential topic. */
export type AuthEvent =
  { kind: "token-revoked"; tokenId: number } | { kind: "user-sessions-ended"; userId: string };

/** True for credential topics, which browsers must never receive. */
export function isAuthTopic(topic: string): boolean {
  return topic.startsWith(AUTH_PREFIX);
}

/** Parses a credential topic; null for any other topic. */
export function parseAuthTopic(topic: string): AuthEvent | null {
  const token = /^auth:token-revoked:(\d+)$/.exec(topic);
  if (token) return { kind: "token-revoked", tokenId: Number(token[1]) };
  const user = /^auth:user-sessions-ended:(.+)$/.exec(topic);
  if (user) return { kind: "user-sessions-ended", userId: user[1]! };
  return null;
}

/** Arguments of the `SELECT pg_notify($1, $2)` that announces `topic` (send it inside the changing transaction). */
export function notifyArgs(topic: string): [string, string] {
  return [LIVE_CHANNEL, JSON.stringify({ topic })];
}
