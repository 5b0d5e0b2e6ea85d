import type { PrismaClient } from "@/generated/prisma/client";

/**
 * Failed sign-ins per key in fixed windows, in PostgreSQL so every app instance counts the same
 * failures. Keys are opaque here ("account:<email>", "address:<ip>": lib/server/auth/sign-in-limit.ts).
 */

/** Failures of one key in its current window. */
export interface ThrottleCount {
  failures: number;
  /** Start of the window the failures count in (the first failure of it). */
  windowStartedAt: Date;
}

/** Current-window counts of `keys` at `now`; keys without failures in the last `windowS` seconds are absent. */
export async function throttleCounts(db: PrismaClient, keys: string[], windowS: number, now: Date): Promise<Map<string, ThrottleCount>> {
  const since = new Date(now.getTime() - windowS * 1000);
  const rows = await db.signInThrottle.findMany({ where: { key: { in: keys }, windowStartedAt: { gt: since } }, select: { key: true, failures: true, windowStartedAt: true } });
  return new Map(rows.map((r) => [r.key, { failures: r.failures, windowStartedAt: r.windowStartedAt }]));
}

/** Counts one failure for each key at `now` (a window older than `windowS` seconds starts over), race-free. */
export async function countFailure(db: PrismaClient, keys: string[], windowS: number, now: Date): Promise<void> {
  const since = new Date(now.getTime() - windowS * 1000);
  for (const key of keys) {
    await db.$executeRaw`
      INSERT INTO "SignInThrottle" (key, "windowStartedAt", failures) VALUES (${key}, ${now}, 1)
      ON CONFLICT (key) DO UPDATE SET
        failures = CASE WHEN "SignInThrottle"."windowStartedAt" <= ${since} THEN 1 ELSE "SignInThrottle".failures + 1 END,
        "windowStartedAt" = CASE WHEN "SignInThrottle"."windowStartedAt" <= ${since} THEN ${now} ELSE "SignInThrottle"."windowStartedAt" END`;
  }
}

/** Forgets the failures of `key` (a successful sign-in clears its account's count). */
export async function clearFailures(db: PrismaClient, key: string): Promise<void> {
  await db.signInThrottle.deleteMany({ where: { key } });
}
