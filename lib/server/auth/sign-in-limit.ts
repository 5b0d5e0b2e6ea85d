import type { PrismaClient } from "@/generated/prisma/client";
import { clearFailures, countFailure, throttleCounts } from "@/lib/server/repositories/sign-in-throttle";
import { CLIENT_ADDRESS_HEADER } from "./client-address";

/**
 * Limits failed sign-ins (wrong email or password, HTTP 401) separately by account and by client
 * address, counted in PostgreSQL so every instance shares them:
 * - per account (the email as typed, lower-cased): {@link SIGN_IN_LIMITS}.account failures per
 *   window stop password guessing on one account from any number of addresses;
 * - per client address (lib/server/auth/client-address.ts): a looser limit stops one client
 *   spraying guesses across many accounts.
 * A refused attempt (429) is not checked and not counted, so a flood against one account never
 * uses up its address's budget for other accounts. A successful sign-in clears its account's count.
 */

/** Failures allowed per key within `windowS` seconds before sign-in answers 429. */
export const SIGN_IN_LIMITS = {
  windowS: 15 * 60,
  account: 10,
  address: 50,
} as const;

/** Injectable clock. */
export type Now = () => Date;

/** The keys an attempt counts under. */
function keysOf(email: string, address: string) {
  return { account: `account:${email.trim().toLowerCase()}`, address: `address:${address}` };
}

/** Which limit refuses an attempt, and for how many more seconds; null when it may go ahead. */
export async function signInRefusal(db: PrismaClient, email: string, address: string, now: Date): Promise<{ scope: "account" | "address"; retryAfterS: number } | null> {
  const keys = keysOf(email, address);
  const counts = await throttleCounts(db, [keys.account, keys.address], SIGN_IN_LIMITS.windowS, now);
  for (const scope of ["account", "address"] as const) {
    const count = counts.get(keys[scope]);
    if (count && count.failures >= SIGN_IN_LIMITS[scope]) {
      const endsAt = count.windowStartedAt.getTime() + SIGN_IN_LIMITS.windowS * 1000;
      return { scope, retryAfterS: Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000)) };
    }
  }
  return null;
}

/**
 * Runs a better-auth `POST /sign-in/email` through the limits: 429 `too_many_attempts` (with
 * Retry-After, naming the limit) when the account or the address is over its limit; otherwise
 * `handler`, counting a 401 as a failure of both keys and clearing the account's count on success.
 * A body without a readable email goes straight to `handler` (better-auth answers 400).
 */
export async function limitSignIn(request: Request, handler: (r: Request) => Promise<Response>, db: PrismaClient, now: Now = () => new Date()): Promise<Response> {
  const email = await request
    .clone()
    .json()
    .then((b: unknown) => (b && typeof b === "object" && typeof (b as { email?: unknown }).email === "string" ? (b as { email: string }).email : null))
    .catch(() => null);
  if (email === null) return handler(request);
  const address = request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  const refusal = await signInRefusal(db, email, address, now());
  if (refusal) {
    const message =
      refusal.scope === "account"
        ? `too many failed sign-ins for this account; try again in ${Math.ceil(refusal.retryAfterS / 60)} min or ask an admin to set a new password`
        : `too many failed sign-ins from your address; try again in ${Math.ceil(refusal.retryAfterS / 60)} min`;
    return new Response(JSON.stringify({ code: "too_many_attempts", message }), {
      status: 429,
      headers: { "content-type": "application/json", "retry-after": String(refusal.retryAfterS) },
    });
  }
  const response = await handler(request);
  const keys = keysOf(email, address);
  if (response.status === 401) await countFailure(db, [keys.account, keys.address], SIGN_IN_LIMITS.windowS, now());
  else if (response.ok) await clearFailures(db, keys.account);
  return response;
}
