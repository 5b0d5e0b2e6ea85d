import { createHash, randomBytes } from "node:crypto";

import type { PrismaClient } from "@/generated/prisma/client";
import { notifyArgs, tokenRevokedTopic } from "@/lib/server/live/auth-events";

/**
 * Who a valid worker token speaks for. `shared`: created with `--shared`, so it may also write to
 * runs, sessions and plans other hosts own (see lib/server/auth/ownership.ts).
 */
export interface TokenPrincipal {
  tokenId: number;
  hostId: number;
  hostName: string;
  shared: boolean;
}

const TOKEN_PREFIX = "pw_";

/** SHA-256 hex of a token secret: the only form stored. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Creates a worker token for `hostName` (creating the host when new) and returns the secret,
 * which is shown once and stored only as its hash. `shared`: the token may write to other
 * hosts' runs, sessions and plans (default false: only to what its host created).
 */
export async function createToken(
  db: PrismaClient,
  hostName: string,
  opts: { shared?: boolean } = {},
): Promise<{ token: string; id: number; hostName: string; shared: boolean }> {
  const token = TOKEN_PREFIX + randomBytes(24).toString("base64url");
  const host = await db.host.upsert({
    where: { name: hostName },
    create: { name: hostName },
    update: { name: hostName },
    select: { id: true, name: true },
  });
  const row = await db.apiToken.create({
    data: {
      hostId: host.id,
      prefix: token.slice(0, 9),
      tokenHash: hashToken(token),
      shared: opts.shared ?? false,
    },
    select: { id: true, shared: true },
  });
  return { token, id: row.id, hostName: host.name, shared: row.shared };
}

/** Resolves a presented token to its principal, or null when unknown or revoked. */
export async function verifyToken(db: PrismaClient, token: string): Promise<TokenPrincipal | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, revokedAt: true, shared: true, host: { select: { id: true, name: true } } },
  });
  if (!row || row.revokedAt) return null;
  return { tokenId: row.id, hostId: row.host.id, hostName: row.host.name, shared: row.shared };
}

/**
 * Marks a token as revoked and, in the same transaction, announces it to every app instance
 * (their open ingest and live sockets of this token close at once). False when there was no
 * active token with this id.
 */
export async function revokeToken(
  db: PrismaClient,
  id: number,
  at: Date = new Date(),
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const res = await tx.apiToken.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: at },
    });
    if (res.count === 0) return false;
    const [channel, payload] = notifyArgs(tokenRevokedTopic(id));
    await tx.$executeRaw`SELECT pg_notify(${channel}, ${payload})`;
    return true;
  });
}

/** Of the given token ids, those that still exist and are not revoked (the open sockets' backstop re-check). */
export async function activeTokenIds(db: PrismaClient, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.apiToken.findMany({
    where: { id: { in: ids }, revokedAt: null },
    select: { id: true },
  });
  return new Set(rows.map((r) => r.id));
}

/** Lists tokens (never their secrets), newest first. */
export async function listTokens(db: PrismaClient) {
  return db.apiToken.findMany({
    orderBy: { id: "desc" },
    select: {
      id: true,
      prefix: true,
      shared: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
      host: { select: { name: true } },
    },
  });
}
