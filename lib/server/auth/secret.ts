import { randomBytes } from "node:crypto";

import type { PrismaClient } from "@/generated/prisma/client";

const AUTH_SECRET_NAME = "auth";

/**
 * The key that signs session cookies: `fromEnv` (PITWALL_AUTH_SECRET) when set; else the one
 * kept in the database, generated on first use (32 random bytes, base64url).
 *
 * Why the database and not PITWALL_DATA_DIR: with DATABASE_URL, several app instances share one
 * PostgreSQL but no folder, and all of them must verify each other's cookies. The insert is
 * `ON CONFLICT DO NOTHING` followed by a read, so instances starting together agree on one key.
 * Someone who can read this table can read the session tokens next to it anyway.
 */
export async function resolveAuthSecret(
  db: PrismaClient,
  fromEnv: string | undefined,
): Promise<string> {
  if (fromEnv) return fromEnv;
  await db.serverSecret.createMany({
    data: [{ name: AUTH_SECRET_NAME, value: randomBytes(32).toString("base64url") }],
    skipDuplicates: true,
  });
  const row = await db.serverSecret.findUniqueOrThrow({
    where: { name: AUTH_SECRET_NAME },
    select: { value: true },
  });
  return row.value;
}
