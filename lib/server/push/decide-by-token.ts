import type pg from "pg";

import { parseInboxRef, type InboxDecisionInput } from "@/lib/api/inbox";
import type { PushActionResponse } from "@/lib/api/push";
import { ForbiddenError } from "@/lib/server/errors";
import { decideInboxItem } from "@/lib/server/repositories/inbox-decisions";
import { decidePlan } from "@/lib/server/repositories/plan-decisions";
import { actionPerson, consumeActionToken } from "@/lib/server/repositories/push";

import { ActionTokenError, verifyActionToken } from "./action-token";
import { actionTokenSecret } from "./keys";

/** What a deny from a notification tells the model (there is no text box on a notification). */
export const PUSH_DENIAL = "denied from a Pitwall notification";

/**
 * Decides the inbox item or plan an action token names, as the person it names (POST
 * /api/push/action). Order: signature and expiry, then the person (still enabled and still an
 * approver or admin), then the one use (a refused person does not burn the token), then the
 * decision itself, audited under the person's name like a decision made on /inbox.
 * @throws ActionTokenError 401 `token_invalid` / `token_expired`, 409 `token_used`;
 *   ForbiddenError 403 for a disabled or demoted person; the decision's own errors (409
 *   `conflict` naming who decided first, `expired`, `answered_in_terminal`, ...; 404).
 */
export async function decideByActionToken(
  pool: pg.Pool,
  token: string,
  at: Date = new Date(),
): Promise<PushActionResponse> {
  const claims = verifyActionToken(await actionTokenSecret(pool), token, at);
  const person = await actionPerson(pool, claims.u);
  if (!person || person.disabled)
    throw new ForbiddenError("the person this action token was made for no longer has an account");
  if (person.role !== "approver" && person.role !== "admin")
    throw new ForbiddenError(`deciding needs the approver role; ${person.name} is ${person.role}`);
  const fresh = await consumeActionToken(
    pool,
    { jti: claims.j, userId: claims.u, expiresAt: new Date(claims.e * 1000) },
    at,
  );
  if (!fresh) throw new ActionTokenError("token_used", "this action token was already used");
  const ref = parseInboxRef(claims.i)!;
  const message = claims.a === "deny" ? PUSH_DENIAL : undefined;
  if (ref.kind === "plan") {
    const plan = await decidePlan(
      pool,
      ref.n,
      { decision: claims.a === "allow" ? "approved" : "rejected", comment: message },
      person.name,
      at,
    );
    return {
      id: claims.i,
      decision: claims.a,
      decidedBy: plan.decidedBy ?? person.name,
      decidedAt: new Date(plan.decidedAt).toISOString(),
    };
  }
  const input: InboxDecisionInput = { decision: claims.a, message };
  const d = await decideInboxItem(pool, ref.n, input, person.name, at);
  return { id: claims.i, decision: d.decision, decidedBy: d.decidedBy, decidedAt: d.decidedAt };
}
