import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "@/generated/prisma/client";

/** Who a valid worker token speaks for. */
export interface TokenPrincipal {
  tokenId: number;
  hostId: number;
  hostName: string;
}

const TOKEN_PREFIX = "pw_";

/** SHA-256 hex of a token secret: the only form stored. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Creates a worker token for `hostName` (creating the host when new) and returns the secret,
 * which is shown once and stored only as its hash.
 */
export async function createToken(db: PrismaClient, hostName: string): Promise<{ token: string; id: number; hostName: string }> {
  const token = TOKEN_PREFIX + randomBytes(24).toString("base64url");
  const host = await db.host.upsert({
    where: { name: hostName },
    create: { name: hostName },
    update: { name: hostName },
    select: { id: true, name: true },
  });
  const row = await db.apiToken.create({
    data: { hostId: host.id, prefix: token.slice(0, 9), tokenHash: hashToken(token) },
    select: { id: true },
  });
  return { token, id: row.id, hostName: host.name };
}

/** Resolves a presented token to its principal, or null when unknown or revoked. */
export async function verifyToken(db: PrismaClient, token: string): Promise<TokenPrincipal | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, revokedAt: true, host: { select: { id: true, name: true } } },
  });
  if (!row || row.revokedAt) return null;
  return { tokenId: row.id, hostId: row.host.id, hostName: row.host.name };
}

/** Marks a token as revoked; returns false when it did not exist. */
export async function revokeToken(db: PrismaClient, id: number): Promise<boolean> {
  const res = await db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  return res.count > 0;
}

/** Lists tokens (never their secrets), newest first. */
export async function listTokens(db: PrismaClient) {
  return db.apiToken.findMany({
    orderBy: { id: "desc" },
    select: { id: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true, host: { select: { name: true } } },
  });
}
