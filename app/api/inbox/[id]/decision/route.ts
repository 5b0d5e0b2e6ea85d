import { MAX_WAIT_S } from "@/lib/api/contract";
import {
  closeInboxItemRoute,
  decideInboxRoute,
  inboxDecisionRoute,
  type DecideInboxResponse,
  type InboxDecisionResponse,
} from "@/lib/api/inbox";
import { pool } from "@/lib/server/db";
import { errorResponse, handle, json } from "@/lib/server/http";
import { authenticateWorker } from "@/lib/server/ingest/service";
import { waitForTopic } from "@/lib/server/live/bus";
import { logger } from "@/lib/server/logger";
import {
  closeInboxIfAbandoned,
  inboxItemForAgent,
  noteInboxWaiter,
} from "@/lib/server/repositories/inbox-agent";
import { decideInboxItem } from "@/lib/server/repositories/inbox-decisions";
import { expireInboxItems } from "@/lib/server/repositories/inbox-list";
import { inboxDecisionTopic } from "@/lib/server/repositories/inbox-topics";
import { decidePlan } from "@/lib/server/repositories/plan-decisions";
import { PLAN_WAITER_GRACE_MS } from "@/lib/server/repositories/plan-orphans";
import { apiRoute, readInput, type RouteContext } from "@/lib/server/route-input";

/**
 * POST /api/inbox/:id/decision `{decision: "allow"|"deny", message?, editedInput?}` (approvers
 * and admins) → 200 `{decision}`. The first decision wins: a second gets 409 `conflict` naming
 * who decided; an item whose agent no longer waits gets 409 `answered_in_terminal`,
 * `agent_ended` or `expired`. With `alwaysAllow: {pattern, project, agent?}` (allow only) an allow
 * rule for the item's tool is written too and applied to the permissions already waiting. For a plan (`plan-7`), allow approves and deny rejects with the
 * message as comment (the plan's own routes work as before). 400 bad id/body; 404 unknown.
 */
export const POST = apiRoute(
  "approver",
  decideInboxRoute,
  async ({ params, body: input }, _request, viewer) => {
    const id = params.id;
    if (id.kind === "plan") {
      if (input.alwaysAllow)
        return errorResponse(
          400,
          "invalid_body",
          "alwaysAllow: plans take no rules; a rule covers tool permissions",
        );
      const plan = await decidePlan(
        pool(),
        id.n,
        { decision: input.decision === "allow" ? "approved" : "rejected", comment: input.message },
        viewer.name,
      );
      const answer: DecideInboxResponse = {
        decision: {
          decision: input.decision,
          message: plan.comment,
          editedInput: null,
          decidedBy: plan.decidedBy,
          decidedAt: new Date(plan.decidedAt).toISOString(),
        },
      };
      return json(answer);
    }
    const answer: DecideInboxResponse = {
      decision: await decideInboxItem(pool(), id.n, input, viewer.name),
    };
    return json(answer);
  },
);

/**
 * GET /api/inbox/:id/decision?wait=60 (worker token of the item's host) → `{status, decision,
 * expiresAt}`; with `wait`, held up to that many seconds (max 120) until decided or closed (at
 * its expiry, closed or denied as PITWALL_INBOX_ON_EXPIRY says). A long-poll that
 * its agent leaves early with no newer one within 5 s closes the item as answered in the
 * terminal (or agent ended). 403 for another host's token; 404 unknown item.
 */
export async function GET(request: Request, ctx: RouteContext): Promise<Response> {
  return handle(async () => {
    const principal = await authenticateWorker(request.headers.get("authorization"));
    const { params, query } = await readInput(request, ctx, inboxDecisionRoute);
    const id = params.id;
    const waitS = query.wait;
    // Subscribe first, then read: a decision recorded in between is not missed.
    const waiter = waitForTopic(
      inboxDecisionTopic(id.n),
      Math.min(waitS, MAX_WAIT_S) * 1000,
      request.signal,
    );
    try {
      let state = await inboxItemForAgent(pool(), id.n, principal);
      if (state.status === "waiting" && waitS > 0) {
        await noteInboxWaiter(pool(), id.n);
        request.signal.addEventListener(
          "abort",
          () => {
            const leftAt = new Date();
            setTimeout(
              () =>
                void closeInboxIfAbandoned(pool(), id.n, leftAt).catch((err) =>
                  logger.warn({ err, itemId: id.n }, "could not close an abandoned inbox item"),
                ),
              PLAN_WAITER_GRACE_MS,
            ).unref();
          },
          { once: true },
        );
        // Wake at the item's expiry too: its kind's policy (hand back or deny) applies then.
        const untilExpiryMs = Date.parse(state.expiresAt) - Date.now();
        let expiryTimer: NodeJS.Timeout | undefined;
        const atExpiry = new Promise<false>(
          (resolve) =>
            (expiryTimer = setTimeout(() => resolve(false), Math.max(0, untilExpiryMs) + 50)),
        );
        const woke = await Promise.race([waiter.promise, atExpiry]);
        clearTimeout(expiryTimer);
        if (!woke && Date.now() >= Date.parse(state.expiresAt)) await expireInboxItems(pool());
        state = await inboxItemForAgent(pool(), id.n, principal);
      }
      const answer: InboxDecisionResponse = state;
      return json(answer);
    } finally {
      waiter.cancel();
    }
  });
}

/**
 * DELETE /api/inbox/:id/decision (worker token of the item's host): the agent no longer waits
 * for a decision, because it was answered in the agent's own UI (opencode's TUI or web client
 * replied first). A waiting item closes as `answered_in_terminal` (audited); → 200 `{status}`
 * (the item's status after). 403 for another host's token; 404 unknown item.
 */
export async function DELETE(request: Request, ctx: RouteContext): Promise<Response> {
  return handle(async () => {
    const principal = await authenticateWorker(request.headers.get("authorization"));
    const id = (await readInput(request, ctx, closeInboxItemRoute)).params.id;
    await inboxItemForAgent(pool(), id.n, principal);
    await closeInboxIfAbandoned(pool(), id.n, new Date());
    return json({ status: (await inboxItemForAgent(pool(), id.n, principal)).status });
  });
}
