"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";

import { ApiError } from "@/lib/api/client";
import { postDecision, type DecisionRequest } from "@/lib/api/fetchers/plans";
import { allPlansQueryKey, planQueryKey } from "@/lib/api/query-keys";

/** Shown when "Request changes" is sent without a comment (the API refuses it too). */
export const COMMENT_REQUIRED =
  "Write what should change: a comment is required to request changes.";

/**
 * The decision body for `decision` with `comment` (trimmed; blank dropped), or the reason it may
 * not be sent: requesting changes needs a comment. Same rule as the decision API.
 */
export function decisionBody(
  decision: DecisionRequest["decision"],
  comment: string,
): { body: DecisionRequest } | { error: string } {
  const text = comment.trim();
  if (decision === "changes_requested" && !text) return { error: COMMENT_REQUIRED };
  return { body: text ? { decision, comment: text } : { decision } };
}

/**
 * Records decisions on plan `planId` (`POST /api/plans/by-id/:id/decision`) and, success or
 * conflict, refetches the plan, every plan list and the pending count. `conflict` is the server's
 * message when someone decided first (409).
 */
export function useDecidePlan(
  planId: number,
  handlers: {
    onDecided?: (body: DecisionRequest) => void;
    onConflict?: (message: string) => void;
  } = {},
) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: (body: DecisionRequest) => postDecision(planId, body),
    onSuccess: (_, body) => handlers.onDecided?.(body),
    onError: (err) => {
      if (err instanceof ApiError && err.status === 409) handlers.onConflict?.(err.message);
    },
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: planQueryKey(planId) }),
        queryClient.invalidateQueries({ queryKey: allPlansQueryKey }),
      ]),
  });
  const error = mutation.error;
  const conflict = error instanceof ApiError && error.status === 409 ? error.message : null;
  return { decide: mutation.mutate, busy: mutation.isPending, error, conflict };
}
