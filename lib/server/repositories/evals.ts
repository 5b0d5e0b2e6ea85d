import type { PrismaClient } from "@/generated/prisma/client";
import type { RunEvalsQuery } from "@/lib/api/runs";
import { isoTime } from "@/lib/iso-time";
import {
  aggregateTau,
  perPromptTau,
  tauByCategory,
  type TauAggregate,
  type TauCounts,
} from "@/lib/metrics/tau";
import { NotFoundError } from "@/lib/server/errors";
import type {
  CategoryTauView,
  DraftSettingsView,
  EvalRunRefView,
  EvalTableRow,
  RunCheckpointView,
  RunEvalsView,
} from "@/lib/view-models/evals";

import { asSettings, tauBaselines } from "./baselines";
import {
  checkpointProducers,
  checkpointRef,
  compareCheckpoints,
  countsView,
  draftKey,
  groupBy,
  keyOfCheckpoint,
  latestCheckpointKey,
  meanOf,
  sortedDistinct,
  stepText,
} from "./eval-checkpoints";

/** One run's evaluations: the run page's eval section and `GET /api/runs/:id/evals` (see {@link getRunEvals}). */

export { NO_CHECKPOINT_KEY, NO_DRAFT_KEY } from "./eval-checkpoints";
export { getEvalOverview } from "./eval-overview";

/** Options of {@link getRunEvals}: `draft` selects a draft-settings key (see {@link RunEvalsView.draft}). */

interface ResultRow extends TauCounts {
  step: string | null;
  label: string | null;
  uri: string | null;
  promptId: string;
  category: string | null;
  dataset: string | null;
  outputTokPerS: number | null;
  ts: Date;
}

function categoryView(category: string | null, members: readonly ResultRow[]): CategoryTauView {
  return {
    category,
    ...countsView(aggregateTau(members) as TauAggregate),
    prompts: new Set(members.map((m) => m.promptId)).size,
    meanOutputTokPerS: meanOf(members.map((m) => m.outputTokPerS)),
  };
}

/**
 * A run's evaluations, every τ computed from raw counts with lib/metrics/tau.ts (Σ tokens
 * produced / Σ verify steps): per checkpoint (ordered by step, then label, then first result
 * time) its τ, counts, prompt count, τ per category and the per-prompt τ distribution (for EVERY
 * checkpoint, bins aligned so they compare); table rows (checkpoint total, then each category);
 * the draft settings seen; and the baselines of metric `tau`.
 *
 * A checkpoint named only by URI takes its step from the artifact of the run that saved it (same
 * rule as {@link getEvalOverview}), so an eval run's checkpoints sort and plot by training step.
 * Results of different draft settings are never summed into one τ: the checkpoints cover ONE set
 * of draft settings, `query.draft` when given and present, else the set with the most verify
 * steps (ties: smallest key); `draftSettings` lists them all so a page can switch (the HTTP route
 * answers 400 for a `draft` key the run does not have). `latestKey` names the latest checkpoint
 * (highest step, else most recently scored), which is not necessarily the last in order.
 * A run that saved checkpoints (`run.artifact` kind checkpoint) also gets the results other runs
 * (eval runs) pushed for those URIs; `scoredBy` names those runs.
 * Reads every result of the run (not aggregated in SQL) because the per-prompt distribution needs
 * each result's τ.
 * @throws NotFoundError when no run has this id.
 */
export async function getRunEvals(
  db: PrismaClient,
  runId: number,
  query: RunEvalsQuery = {},
  now: Date = new Date(),
): Promise<RunEvalsView> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  // A training run's own checkpoints, so results other runs pushed for them show on its page too.
  const ownCheckpoints = (
    await db.artifact.findMany({ where: { runId, kind: "checkpoint" }, select: { uri: true } })
  ).map((a) => a.uri);
  const [raw, baselines] = await Promise.all([
    db.evalResult.findMany({
      where:
        ownCheckpoints.length > 0
          ? { OR: [{ runId }, { checkpointUri: { in: ownCheckpoints } }] }
          : { runId },
      select: {
        runId: true,
        checkpointStep: true,
        checkpointLabel: true,
        checkpointUri: true,
        promptId: true,
        category: true,
        dataset: true,
        verifySteps: true,
        acceptedTokens: true,
        draft: true,
        outputTokPerS: true,
        ts: true,
      },
      orderBy: [{ ts: "asc" }, { key: "asc" }],
    }),
    tauBaselines(db, null),
  ]);

  // Draft settings: group, pick one.
  const byDraft = groupBy(raw, (r) => draftKey(r.draft));
  const draftSettings: DraftSettingsView[] = [...byDraft.entries()]
    .map(([key, rows]) => ({
      key,
      settings: asSettings(rows[0]!.draft),
      results: rows.length,
      verifySteps: rows.reduce((s, r) => s + r.verifySteps, 0),
    }))
    .sort((a, b) => b.verifySteps - a.verifySteps || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const draft =
    query.draft !== undefined && byDraft.has(query.draft)
      ? query.draft
      : (draftSettings[0]?.key ?? null);
  const selectedRows = draft === null ? [] : byDraft.get(draft)!;
  // A checkpoint named by URI only takes its step from the artifact of the run that saved it.
  const producer = await checkpointProducers(
    db,
    selectedRows.filter((r) => r.checkpointStep === null).map((r) => r.checkpointUri),
  );
  const rows: ResultRow[] = selectedRows.map((r) => ({
    step: stepText(
      r.checkpointStep ??
        (r.checkpointUri !== null ? producer.get(r.checkpointUri)?.step : null) ??
        null,
    ),
    label: r.checkpointLabel,
    uri: r.checkpointUri,
    promptId: r.promptId,
    category: r.category,
    dataset: r.dataset,
    verifySteps: r.verifySteps,
    acceptedTokens: r.acceptedTokens,
    outputTokPerS: r.outputTokPerS,
    ts: r.ts,
  }));

  // Checkpoints.
  const byCheckpoint = groupBy(rows, (r) => keyOfCheckpoint(r.step, r.label, r.uri));
  const checkpoints: RunCheckpointView[] = [...byCheckpoint.entries()].map(([key, members]) => {
    const categories = tauByCategory(members).map((g) =>
      categoryView(
        g.key,
        members.filter((m) => m.category === g.key),
      ),
    );
    return {
      ...checkpointRef(
        key,
        members.map((m) => ({ step: m.step, label: m.label, uri: m.uri, first: m.ts, last: m.ts })),
      ),
      ...countsView(aggregateTau(members) as TauAggregate),
      prompts: new Set(members.map((m) => m.promptId)).size,
      meanOutputTokPerS: meanOf(members.map((m) => m.outputTokPerS)),
      categories,
      distribution: perPromptTau(members),
    };
  });
  checkpoints.sort(compareCheckpoints);

  const tableRows: EvalTableRow[] = checkpoints.flatMap((c) => {
    const base = { checkpointKey: c.key, step: c.step, label: c.label, uri: c.uri };
    const total: EvalTableRow = {
      ...base,
      total: true,
      category: null,
      tau: c.tau,
      verifySteps: c.verifySteps,
      acceptedTokens: c.acceptedTokens,
      tokensProduced: c.tokensProduced,
      results: c.results,
      prompts: c.prompts,
      meanOutputTokPerS: c.meanOutputTokPerS,
    };
    // A checkpoint whose results all lack a category has nothing to split.
    if (c.categories.length === 1 && c.categories[0]!.category === null) return [total];
    return [total, ...c.categories.map((g): EvalTableRow => ({ ...base, ...g, total: false }))];
  });

  return {
    runId,
    asOf: isoTime(now),
    resultCount: raw.length,
    draftSettings,
    draft,
    checkpoints,
    latestKey: latestCheckpointKey(checkpoints),
    rows: tableRows,
    categories: sortedDistinct(rows.map((r) => r.category)),
    datasets: sortedDistinct(rows.map((r) => r.dataset)),
    baselines,
    scoredBy: await scoringRuns(db, raw, runId),
  };
}

/** The other runs whose results are among `raw` (eval runs scoring this run's checkpoints), by id. */
async function scoringRuns(
  db: PrismaClient,
  raw: ReadonlyArray<{ runId: number }>,
  runId: number,
): Promise<EvalRunRefView[]> {
  const ids = [...new Set(raw.map((r) => r.runId).filter((id) => id !== runId))].sort(
    (a, b) => a - b,
  );
  if (ids.length === 0) return [];
  return db.run.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, kind: true },
    orderBy: { id: "asc" },
  });
}

// ---------------------------------------------------------------------------------------------
