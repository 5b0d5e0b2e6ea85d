import { pool } from "@/lib/server/db";
import { errorResponse, handle, json } from "@/lib/server/http";
import { authenticateWorker } from "@/lib/server/ingest/service";
import { planDecisionTopic, waitForTopic } from "@/lib/server/live/bus";
import { assertPlanProposer, planDecision } from "@/lib/server/repositories/plan-decisions";
import {
  closeIfAbandoned,
  noteWaiter,
  PLAN_WAITER_GRACE_MS,
} from "@/lib/server/repositories/plan-orphans";

/** Longest accepted long-poll, in seconds. */
const MAX_WAIT_S = 120;

/**
 * GET /api/plans/:key/decision?wait=60 — the proposer's view of its plan (worker token).
 * Answers `{status: "proposed", decision: null}` while undecided; with `wait`, holds the request
 * up to that many seconds (max 120) until a decision arrives. Decided: `{status, decision}` where
 * `decision` is the `plan.decision` frame (items as decided, comment, who, when). 404 unknown key;
 * 403 `forbidden` for a token of another host than the proposer's (unless created `--shared`).
 * A long-poll (`wait` > 0) that its client leaves early, with no newer one within 5 s, closes the
 * plan as "answered in the terminal" (or "agent ended" when its session ended).
 */
export async function GET(
  request: Request,
  ctx: { params: Promise<{ key: string }> },
): Promise<Response> {
  return handle(async () => {
    const principal = await authenticateWorker(request.headers.get("authorization"));
    const { key } = await ctx.params;
    await assertPlanProposer(pool(), key, principal);
    const waitParam = new URL(request.url).searchParams.get("wait") ?? "0";
    const waitS = Number(waitParam);
    if (!Number.isFinite(waitS) || waitS < 0)
      return errorResponse(400, "invalid_query", "wait must be a number of seconds ≥ 0");
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
      return json(
        decision ? { status: decision.decision, decision } : { status: "proposed", decision: null },
      );
    } finally {
      waiter.cancel();
    }
  });
}
