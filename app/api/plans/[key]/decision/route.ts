import { MAX_WAIT_S } from "@/lib/api/contract";
import { planDecisionRoute, type PlanDecisionResponse } from "@/lib/api/plans";
import { pool } from "@/lib/server/db";
import { handle, json } from "@/lib/server/http";
import { authenticateWorker } from "@/lib/server/ingest/service";
import { planDecisionTopic, waitForTopic } from "@/lib/server/live/bus";
import { assertPlanProposer, planDecision } from "@/lib/server/repositories/plan-decisions";
import {
  closeIfAbandoned,
  noteWaiter,
  PLAN_WAITER_GRACE_MS,
} from "@/lib/server/repositories/plan-orphans";
import { readInput, type RouteContext } from "@/lib/server/route-input";

/**
 * GET /api/plans/:key/decision?wait=60 — the proposer's view of its plan (worker token).
 * Answers `{status: "proposed", decision: null}` while undecided; with `wait`, holds the request
 * up to that many seconds (max 120) until a decision arrives. Decided: `{status, decision}` where
 * `decision` is the `plan.decision` frame (items as decided, comment, who, when). 404 unknown key;
 * 403 `forbidden` for a token of another host than the proposer's (unless created `--shared`).
 * A long-poll (`wait` > 0) that its client leaves early, with no newer one within 5 s, closes the
 * plan as "answered in the terminal" (or "agent ended" when its session ended).
 */
export async function GET(request: Request, ctx: RouteContext): Promise<Response> {
  return handle(async () => {
    const principal = await authenticateWorker(request.headers.get("authorization"));
    const { params, query } = await readInput(request, ctx, planDecisionRoute);
    const { key } = params;
    const waitS = query.wait;
    await assertPlanProposer(pool(), key, principal);
    // Subscribe first, then read: a decision recorded in between is not missed.
    const waiter = waitForTopic(
      planDecisionTopic(key),
      Math.min(waitS, MAX_WAIT_S) * 1000,
      request.signal,
    );
    if (waitS > 0) {
      // The proposer waits: note it, and when this poll ends early (its process was stopped) with
      // no newer poll within the grace time, the plan is orphaned (see plan-orphans.ts).
      await noteWaiter(pool(), key);
      request.signal.addEventListener(
        "abort",
        () => {
          const leftAt = new Date();
          setTimeout(
            () => void closeIfAbandoned(pool(), key, leftAt).catch(() => undefined),
            PLAN_WAITER_GRACE_MS,
          ).unref();
        },
        { once: true },
      );
    }
    try {
      let decision = await planDecision(pool(), key);
      if (!decision && waitS > 0 && (await waiter.promise))
        decision = await planDecision(pool(), key);
      const answer: PlanDecisionResponse = decision
        ? { status: decision.decision, decision }
        : { status: "proposed", decision: null };
      return json(answer);
    } finally {
      waiter.cancel();
    }
  });
}
