import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";

import { AppError } from "@/lib/server/errors";

/**
 * One-use action tokens of pushed notifications (docs/notifications.md). A notification's
 * Approve / Deny button must decide without opening the app, so the service worker cannot count
 * on a session cookie; instead each button carries a token naming one item, one decision and one
 * person, valid until `exp` (at most {@link MAX_TOKEN_LIFETIME_S} after the push), signed with
 * HMAC-SHA256 under a server secret (table ServerSecret, "push-action"). The route that takes it
 * (POST /api/push/action) records its `jti` (PushActionUse) so it works once, and re-checks that
 * the person is still enabled and still an approver or admin.
 *
 * Format: `<base64url(JSON claims)>.<base64url(HMAC-SHA256(secret, first part))>`.
 */

/** Longest lifetime of an action token: 60 minutes (shorter when the item expires sooner). */
export const MAX_TOKEN_LIFETIME_S = 3600;

const claimsSchema = z.strictObject({
  v: z.literal(1),
  /** Random id: a used token is remembered by it. */
  j: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
  /** Inbox id: "12" (item) or "plan-7". */
  i: z.string().regex(/^(plan-)?\d{1,9}$/),
  a: z.enum(["allow", "deny"]),
  /** The person's user id. */
  u: z.string().min(1).max(200),
  /** Expiry, seconds since the epoch. */
  e: z.number().int().positive(),
});
/** What a valid token says. */
export type ActionClaims = z.infer<typeof claimsSchema>;

/** A refused action token: 401 `token_invalid` (malformed or forged), 401 `token_expired`, 409 `token_used`. */
export class ActionTokenError extends AppError {
  constructor(code: "token_invalid" | "token_expired" | "token_used", message: string) {
    super(code as AppError["code"], message, code === "token_used" ? 409 : 401);
  }
}

function mac(secret: string, body: string): Buffer {
  return createHmac("sha256", secret).update(body).digest();
}

/**
 * Signs a token for `item`'s decision `action` by user `userId`, valid until `expiresAt` (capped
 * at {@link MAX_TOKEN_LIFETIME_S} after `at`). @returns the token and its claims.
 */
export function signActionToken(
  secret: string,
  claim: { item: string; action: "allow" | "deny"; userId: string; expiresAt: Date },
  at: Date = new Date(),
): { token: string; claims: ActionClaims } {
  const capS = Math.floor(at.getTime() / 1000) + MAX_TOKEN_LIFETIME_S;
  const claims: ActionClaims = {
    v: 1,
    j: randomBytes(18).toString("base64url"),
    i: claim.item,
    a: claim.action,
    u: claim.userId,
    e: Math.min(capS, Math.floor(claim.expiresAt.getTime() / 1000)),
  };
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return { token: `${body}.${mac(secret, body).toString("base64url")}`, claims };
}

/**
 * Checks a token's signature and expiry (not its use: see consumeActionToken).
 * @throws ActionTokenError `token_invalid` when malformed or not signed with `secret`;
 *   `token_expired` when `at` is past its expiry.
 */
export function verifyActionToken(
  secret: string,
  token: string,
  at: Date = new Date(),
): ActionClaims {
  const [body, sig, extra] = token.split(".");
  if (!body || !sig || extra !== undefined)
    throw new ActionTokenError("token_invalid", "the action token is malformed");
  const expected = mac(secret, body);
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new ActionTokenError("token_invalid", "the action token's signature does not verify");
  let claims: ActionClaims;
  try {
    claims = claimsSchema.parse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
  } catch {
    throw new ActionTokenError("token_invalid", "the action token's claims are malformed");
  }
  if (claims.e * 1000 <= at.getTime())
    throw new ActionTokenError(
      "token_expired",
      `the action token expired at ${new Date(claims.e * 1000).toISOString()}; open the inbox to decide`,
    );
  return claims;
}
