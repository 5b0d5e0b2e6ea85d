import type { PrismaClient } from "@/generated/prisma/client";
import { readBodyText } from "@/lib/server/body";
import { PayloadTooLargeError } from "@/lib/server/errors";
import {
  accountKey,
  clearFailures,
  refundAttempt,
  reserveAttempt,
  type ThrottlePolicy,
} from "@/lib/server/repositories/sign-in-throttle";

import { CLIENT_ADDRESS_HEADER } from "./client-address";
import { readSignInFields } from "./sign-in-body";

/**
 * Limits sign-in attempts separately by account and by client address (OWASP ASVS 2.2.1), counted
 * atomically in PostgreSQL so every instance shares them and parallel attempts cannot race past:
 * - per account (the email as typed, trimmed and lower-cased): {@link SIGN_IN_LIMITS}.account.free
 *   failures back to back, then each further attempt waits a back-off from the latest failure
 *   (5 s, 10 s, 20 s, 40 s, then 60 s). A guesser gets at most 60 tries an hour on an account, and the
 *   account's owner is never kept out by someone else's failures for longer than that back-off
 *   (no long lockout to abuse). A success, or an admin setting a new password, clears the count.
 * - per client address (lib/server/auth/client-address.ts): a looser limit of the same shape stops
 *   one client spraying guesses across many accounts; people behind the same address wait at most
 *   its back-off too.
 * Every attempt is counted before its password is checked, whatever the body's encoding: the body
 * is read here (JSON, form-urlencoded or multipart) and handed to better-auth as JSON, so a body the
 * limiter cannot read never reaches the password check. A refused attempt (429) is not checked and
 * not counted; an attempt that turns out not to be a failed check (success, 400, 403) is refunded.
 */

/** The two policies; see {@link ThrottlePolicy}. Counts start over after 15 min without a failure. */
export const SIGN_IN_LIMITS = {
  account: { free: 5, minDelayS: 5, maxDelayS: 60, resetAfterS: 15 * 60 },
  address: { free: 50, minDelayS: 5, maxDelayS: 60, resetAfterS: 15 * 60 },
} as const satisfies Record<string, ThrottlePolicy>;

/** Largest sign-in body read, in bytes (the server cuts every /api/auth/* body there too). */
export const MAX_SIGN_IN_BODY_BYTES = 64 * 1024;

/** Injectable clock. */
export type Now = () => Date;

function refusal(scope: "account" | "address", retryAfterS: number): Response {
  const message =
    scope === "account"
      ? `too many failed sign-ins for this account; try again in ${retryAfterS} s`
      : `too many failed sign-ins from your address; try again in ${retryAfterS} s`;
  return new Response(JSON.stringify({ code: "too_many_attempts", message }), {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": String(retryAfterS) },
  });
}

function badBody(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ code, message }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * Runs a better-auth sign-in (`POST /sign-in/…`) through the limits: 400 `invalid_body` when the
 * body holds no string email and password in an encoding better-auth reads; 413 over 64 KiB;
 * 429 `too_many_attempts` (with Retry-After in seconds, naming the limit) while the account or the
 * address is in its back-off; otherwise `handler` with the credentials as a JSON body.
 */
export async function limitSignIn(
  request: Request,
  handler: (r: Request) => Promise<Response>,
  db: PrismaClient,
  now: Now = () => new Date(),
): Promise<Response> {
  let raw: string;
  try {
    raw = await readBodyText(request, MAX_SIGN_IN_BODY_BYTES);
  } catch (err) {
    if (err instanceof PayloadTooLargeError) return badBody(413, err.code, err.message);
    throw err;
  }
  const fields = await readSignInFields(request.headers.get("content-type") ?? "", raw);
  if (!fields)
    return badBody(
      400,
      "invalid_body",
      "send email and password as JSON, form-urlencoded or multipart fields",
    );
  const address = request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  const keys = { account: accountKey(fields.email), address: `address:${address}` };
  const reserved = await reserveAttempt(
    db,
    [
      { key: keys.account, policy: SIGN_IN_LIMITS.account },
      { key: keys.address, policy: SIGN_IN_LIMITS.address },
    ],
    now(),
  );
  if (!reserved.ok)
    return refusal(reserved.key === keys.account ? "account" : "address", reserved.retryAfterS);
  const headers = new Headers(request.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  const response = await handler(
    new Request(request.url, {
      method: "POST",
      headers,
      body: JSON.stringify(fields),
      signal: request.signal,
    }),
  );
  if (response.status === 401) return response;
  if (response.ok) {
    await clearFailures(db, keys.account);
    await refundAttempt(db, [keys.address]);
  } else {
    await refundAttempt(db, [keys.account, keys.address]);
  }
  return response;
}
