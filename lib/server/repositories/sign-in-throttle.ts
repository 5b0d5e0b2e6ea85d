import type { PrismaClient } from "@/generated/prisma/client";

/**
 * Sign-in attempts per key, in PostgreSQL so every app instance counts the same attempts. Keys are
 * opaque here ("account:<email>", "address:<ip>": lib/server/auth/sign-in-limit.ts).
 *
 * An attempt is *reserved* (counted) before the password is checked, in one transaction over all
 * its keys, each by one `INSERT … ON CONFLICT DO UPDATE … WHERE` that locks the key's row and
 * re-reads it: 40 parallel attempts on one key serialise on that row, so no more of them are
 * admitted than the policy allows (the old check-then-count let 33 of 40 through a limit of 10).
 */

/** The throttle key of an account: the email trimmed and lower-cased (also cleared when an admin sets its password). */
export function accountKey(email: string): string {
  return `account:${email.trim().toLowerCase()}`;
}

/** How one key is limited: `free` failures, then a back-off from the latest one. */
export interface ThrottlePolicy {
  /** Failures allowed back to back before the back-off starts. */
  free: number;
  /** First wait once over `free`, in seconds; it doubles with each further failure. */
  minDelayS: number;
  /** Longest wait between attempts once over `free`, in seconds. */
  maxDelayS: number;
  /** A key whose latest failure is older than this starts over at 0, in seconds. */
  resetAfterS: number;
}

/** Seconds an attempt must wait after the latest failure when `failures` were counted: 0, then `minDelayS`, doubling, at most `maxDelayS`. */
export function backoffS(failures: number, policy: ThrottlePolicy): number {
  if (failures < policy.free) return 0;
  return Math.min(policy.minDelayS * 2 ** (failures - policy.free), policy.maxDelayS);
}

/** Outcome of {@link reserveAttempt}: admitted, or refused by the first key over its policy. */
export type Reservation = { ok: true } | { ok: false; key: string; retryAfterS: number };

class Refused extends Error {
  constructor(readonly key: string) {
    super("refused");
  }
}

/**
 * Counts one attempt under every key at `now`, all or nothing: refused (and nothing counted)
 * when any key is still inside its back-off. Keys are locked in the order given, so callers
 * must give them in one fixed order (account, then address) to stay free of deadlocks.
 */
export async function reserveAttempt(
  db: PrismaClient,
  keys: { key: string; policy: ThrottlePolicy }[],
  now: Date,
): Promise<Reservation> {
  try {
    await db.$transaction(async (tx) => {
      for (const { key, policy } of keys) {
        const resetBefore = new Date(now.getTime() - policy.resetAfterS * 1000);
        const rows = await tx.$queryRaw<{ failures: number }[]>`
          INSERT INTO "SignInThrottle" AS t (key, "windowStartedAt", "lastFailureAt", failures) VALUES (${key}, ${now}, ${now}, 1)
          ON CONFLICT (key) DO UPDATE SET
            failures = CASE WHEN t."lastFailureAt" <= ${resetBefore} THEN 1 ELSE t.failures + 1 END,
            "windowStartedAt" = CASE WHEN t."lastFailureAt" <= ${resetBefore} THEN ${now} ELSE t."windowStartedAt" END,
            "lastFailureAt" = ${now}
          WHERE t."lastFailureAt" <= ${resetBefore} OR t.failures < ${policy.free}
             OR t."lastFailureAt" + make_interval(secs => LEAST(${policy.minDelayS} * power(2, t.failures - ${policy.free}), ${policy.maxDelayS})) <= ${now}
          RETURNING failures`;
        if (rows.length === 0) throw new Refused(key);
      }
    });
    return { ok: true };
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    const policy = keys.find((k) => k.key === err.key)!.policy;
    const row = await db.signInThrottle.findUnique({
      where: { key: err.key },
      select: { failures: true, lastFailureAt: true },
    });
    const waitMs = row
      ? row.lastFailureAt.getTime() + backoffS(row.failures, policy) * 1000 - now.getTime()
      : 1000;
    return { ok: false, key: err.key, retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}

/** Takes back one reserved attempt of each key (it was not a failed password check). */
export async function refundAttempt(db: PrismaClient, keys: string[]): Promise<void> {
  await db.$executeRaw`UPDATE "SignInThrottle" SET failures = GREATEST(failures - 1, 0) WHERE key = ANY(${keys}::text[])`;
}

/** Forgets the attempts of `key` (a successful sign-in, or an admin setting a new password, clears its account). */
export async function clearFailures(
  db: PrismaClient | Pick<PrismaClient, "signInThrottle">,
  key: string,
): Promise<void> {
  await db.signInThrottle.deleteMany({ where: { key } });
}
