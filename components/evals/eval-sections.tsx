"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";

import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchRunEvals } from "@/lib/api/fetchers/evals";
import { runEvalsPrefix, runEvalsQueryKey } from "@/lib/api/query-keys";
import type { RunSummary } from "@/lib/view-models";

import { EvalBody } from "./eval-body";

/** A run's evals refetch at most this often (ms) while its worker pushes (progress, metrics…). */
const EVALS_REFRESH_MS = 1000;

/**
 * The eval part of a run page (a drafter training run scoring its checkpoints, or an eval run):
 * headline τ, "acceptance length τ by checkpoint" against the τ baselines, τ by category and the
 * per-prompt τ histogram of a chosen checkpoint (latest by default), and the checkpoint × category
 * table. Renders nothing for a run of another kind without eval results. A training run also shows
 * the results eval runs pushed for its checkpoints (linked as "scored by"). Live: refetched on
 * `evals` (each run.eval, and checkpoint artifacts) and `baselines`.
 */
export function EvalSections({ runId, kind }: { runId: number; kind: RunSummary["kind"] }) {
  const [draft, setDraft] = useState<string | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  // Status only; invalidation is throttled below.
  const live = useLiveTopics([]);
  // Every run.eval (any run) and checkpoint artifact announces `evals`; `run:<id>` is not used here:
  // it changes on every metric push and its value arrives pushed, not as a notice.
  useLiveInvalidate(["evals", "baselines"], [runEvalsPrefix(runId)], {
    minIntervalMs: EVALS_REFRESH_MS,
  });
  const { data, error } = useQuery({
    queryKey: runEvalsQueryKey(runId, draft),
    queryFn: ({ signal }) => fetchRunEvals(runId, draft, signal),
    refetchInterval: refetchIntervalFor(live),
    placeholderData: keepPreviousData,
  });

  if (!data) {
    if (kind !== "eval") return null;
    return (
      <Card>
        <CardContent className="text-sm text-muted-fg">
          {error ? `Could not load the evaluations (${error.message}).` : "Loading evaluations…"}
        </CardContent>
      </Card>
    );
  }
  if (data.resultCount === 0) {
    if (kind !== "eval") return null;
    return (
      <Card>
        <CardHeader>
          <CardTitle>Acceptance length τ by checkpoint</CardTitle>
        </CardHeader>
        <CardContent className="text-sm text-muted-fg">
          No eval results yet. Workers push them as{" "}
          <code className="font-mono text-xs">run.eval</code> frames (checkpoint, prompt, verify
          steps, accepted draft tokens), or import a SpecForge results file:{" "}
          <code className="font-mono text-xs">npx pitwall import results_*.jsonl</code>.
        </CardContent>
      </Card>
    );
  }
  return (
    <EvalBody view={data} error={error} picked={picked} onPick={setPicked} onDraft={setDraft} />
  );
}
