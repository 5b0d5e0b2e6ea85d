import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { type EvalOverviewQuery } from "@/lib/api/evals";
import { isoTime } from "@/lib/iso-time";
import { aggregateTau, tauByCategory, type TauAggregate } from "@/lib/metrics/tau";
import type {
  CategoryTauView,
  EvalOverviewView,
  EvalRunRefView,
  TauCountsView,
  TauLineView,
  TauPointView,
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
  sortedDistinct,
} from "./eval-checkpoints";

/** τ by checkpoint across runs: the /evals page and `GET /api/evals` (see {@link getEvalOverview}). */

/** One SQL group: the results of one run, checkpoint, category, dataset and draft settings, summed. */
interface GroupRow {
  runId: number;
  checkpointStep: bigint | null;
  checkpointLabel: string | null;
  checkpointUri: string | null;
  category: string | null;
  dataset: string | null;
  draft: unknown;
  verifySteps: number;
  acceptedTokens: number;
  results: number;
  prompts: number;
  firstAt: Date;
  lastAt: Date;
  meanOutputTokPerS: number | null;
  tokPerSResults: number;
}

/** A group row placed on its line, with the checkpoint step filled in from the artifact when the results give none. */
interface PlacedRow extends GroupRow {
  step: string | null;
  /** The line's run was found through a checkpoint artifact with this row's URI. */
  byArtifact: boolean;
}

/** The points, latest checkpoint and its categories, datasets and eval runs of one overview line (rows of ONE draft settings). */
function overviewLine(
  rows: readonly PlacedRow[],
  runs: ReadonlyMap<number, EvalRunRefView>,
): Pick<
  TauLineView,
  "attributedBy" | "datasets" | "evalRuns" | "points" | "latestKey" | "latestCategories"
> {
  const byCheckpoint = groupBy(rows, (r) =>
    keyOfCheckpoint(r.step, r.checkpointLabel, r.checkpointUri),
  );
  const points: TauPointView[] = [...byCheckpoint.entries()].map(([key, members]) => ({
    ...checkpointRef(
      key,
      members.map((m) => ({
        step: m.step,
        label: m.checkpointLabel,
        uri: m.checkpointUri,
        first: m.firstAt,
        last: m.lastAt,
      })),
    ),
    ...groupCounts(members),
    evalRunIds: [...new Set(members.map((m) => m.runId))].sort((a, b) => a - b),
  }));
  points.sort(compareCheckpoints);
  const latestKey = latestCheckpointKey(points);
  const latestRows = latestKey === null ? [] : (byCheckpoint.get(latestKey) ?? []);
  // tauByCategory orders the categories (no-category last); each one's counts are its rows summed.
  const latestCategories: CategoryTauView[] = tauByCategory(latestRows).map((g) => {
    const members = latestRows.filter((r) => r.category === g.key);
    return {
      category: g.key,
      ...groupCounts(members),
      prompts: members.reduce((s, m) => s + m.prompts, 0),
      meanOutputTokPerS: groupMeanTokPerS(members),
    };
  });
  const evalRunIds = [...new Set(rows.map((r) => r.runId))].sort((a, b) => a - b);
  return {
    attributedBy: rows.some((r) => r.byArtifact) ? "artifact" : "results",
    datasets: sortedDistinct(rows.map((r) => r.dataset)),
    evalRuns: evalRunIds
      .map((id) => runs.get(id))
      .filter((r): r is EvalRunRefView => r !== undefined),
    points,
    latestKey,
    latestCategories,
  };
}

/** Counts of a set of group rows: Σ counts → τ with lib/metrics/tau.ts; `results` is Σ of the groups' result counts. */
function groupCounts(rows: readonly GroupRow[]): TauCountsView {
  const agg = aggregateTau(rows) as TauAggregate;
  return countsView(
    agg,
    rows.reduce((s, r) => s + r.results, 0),
  );
}

function groupMeanTokPerS(rows: readonly GroupRow[]): number | null {
  let sum = 0;
  let n = 0;
  for (const r of rows) {
    if (r.meanOutputTokPerS !== null && r.tokPerSResults > 0) {
      sum += r.meanOutputTokPerS * r.tokPerSResults;
      n += r.tokPerSResults;
    }
  }
  return n === 0 ? null : sum / n;
}

/**
 * τ by checkpoint across all runs, ONE LINE PER TRAINING RUN (and draft settings). The line a checkpoint belongs to is
 * the run that produced it: the run holding an Artifact whose `uri` equals the results'
 * `checkpointUri` (a training run pushing `run.artifact` for each checkpoint it saves; when several
 * runs hold that URI, a `training` run first, then the earliest artifact). When no artifact matches
 * (no URI, or an unknown one), the line is the run holding the eval results: a training run that
 * scores its own checkpoints, or an eval run on its own. A checkpoint's step comes from the results,
 * else from the matched artifact.
 *
 * Results of several eval runs scoring the same checkpoint of a line are summed into one point
 * (Σ tokens produced / Σ verify steps via lib/metrics/tau.ts, never a mean of τ values). Results
 * of different draft settings are NEVER summed: a run whose results use several gets one line per
 * draft settings (`splitByDraft`, key `<run id>:<draft key>`), each τ agreeing with the run page
 * for that setting; the common single-setting run keeps one line keyed by its id.
 * `latestKey` / `latestCategories`: highest step, else most recently scored checkpoint.
 * `category` restricts every τ to that category; `dataset` to results of that dataset (and the
 * baselines to that dataset's or dataset-less ones). Counts are summed in SQL per (run,
 * checkpoint, category, dataset, draft settings), so the read does not grow with prompts.
 * `latestCategories[].prompts` sums distinct prompt ids per eval run, dataset and draft settings.
 * The line of an archived run is left out.
 */
export async function getEvalOverview(
  db: PrismaClient,
  filters: EvalOverviewQuery = {},
  now: Date = new Date(),
): Promise<EvalOverviewView> {
  const conditions: Prisma.Sql[] = [];
  if (filters.category !== undefined) conditions.push(Prisma.sql`category = ${filters.category}`);
  if (filters.dataset !== undefined) conditions.push(Prisma.sql`dataset = ${filters.dataset}`);
  const where =
    conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
  // NaN sorts above every number in Postgres and avg() would return NaN: skip non-finite tok/s.
  const [groups, categoryRows, datasetRows, baselines] = await Promise.all([
    db.$queryRaw<GroupRow[]>`
      SELECT "runId", "checkpointStep", "checkpointLabel", "checkpointUri", category, dataset, draft,
             sum("verifySteps")::float8 AS "verifySteps", sum("acceptedTokens")::float8 AS "acceptedTokens",
             count(*)::int AS results, count(DISTINCT "promptId")::int AS prompts,
             min(ts) AS "firstAt", max(ts) AS "lastAt",
             avg("outputTokPerS") FILTER (WHERE "outputTokPerS" <> 'NaN'::float8 AND abs("outputTokPerS") < 'Infinity'::float8) AS "meanOutputTokPerS",
             count(*) FILTER (WHERE "outputTokPerS" <> 'NaN'::float8 AND abs("outputTokPerS") < 'Infinity'::float8)::int AS "tokPerSResults"
        FROM "EvalResult" ${where}
       GROUP BY 1, 2, 3, 4, 5, 6, 7`,
    db.evalResult.findMany({
      where: { category: { not: null } },
      distinct: ["category"],
      select: { category: true },
    }),
    db.evalResult.findMany({
      where: { dataset: { not: null } },
      distinct: ["dataset"],
      select: { dataset: true },
    }),
    tauBaselines(db, filters.dataset ?? null),
  ]);

  // Which run produced each checkpoint URI.
  const producer = await checkpointProducers(
    db,
    groups.map((g) => g.checkpointUri),
  );

  // Place each group on its line.
  const lines = new Map<number, { rows: PlacedRow[] }>();
  for (const g of groups) {
    const made = g.checkpointUri !== null ? producer.get(g.checkpointUri) : undefined;
    const lineRunId = made?.runId ?? g.runId;
    const step = g.checkpointStep ?? made?.step ?? null;
    const line = lines.get(lineRunId) ?? { rows: [] };
    line.rows.push({
      ...g,
      step: step === null ? null : step.toString(),
      byArtifact: made !== undefined,
    });
    lines.set(lineRunId, line);
  }

  const runIds = [...new Set([...lines.keys(), ...groups.map((g) => g.runId)])];
  const runRows =
    runIds.length === 0
      ? []
      : await db.run.findMany({
          where: { id: { in: runIds } },
          select: { id: true, name: true, kind: true, archivedAt: true },
        });
  const runs = new Map<number, EvalRunRefView>(
    runRows.map((r) => [r.id, { id: r.id, name: r.name, kind: r.kind }]),
  );
  const archived = new Set(runRows.filter((r) => r.archivedAt !== null).map((r) => r.id));

  const out: Array<TauLineView & { runLastAt: number; verifySteps: number }> = [];
  for (const [runId, line] of lines) {
    const run = runs.get(runId);
    if (!run || archived.has(runId)) continue; // deleted between the two reads, or archived
    // τ of different draft settings is never summed: one line per draft settings of the run.
    const byDraft = groupBy(line.rows, (r) => draftKey(r.draft));
    const runLastAt = Math.max(...line.rows.map((r) => r.lastAt.getTime()));
    for (const [dKey, rows] of byDraft) {
      out.push({
        ...overviewLine(rows, runs),
        key: byDraft.size > 1 ? `${runId}:${dKey}` : String(runId),
        run,
        draft: { key: dKey, settings: asSettings(rows[0]!.draft) },
        splitByDraft: byDraft.size > 1,
        runLastAt,
        verifySteps: rows.reduce((s, r) => s + r.verifySteps, 0),
      });
    }
  }
  // Runs newest first; a run's lines most verify steps first (the run page's default setting).
  out.sort(
    (a, b) =>
      b.runLastAt - a.runLastAt ||
      a.run.id - b.run.id ||
      b.verifySteps - a.verifySteps ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );

  return {
    asOf: isoTime(now),
    filters: { category: filters.category ?? null, dataset: filters.dataset ?? null },
    categories: sortedDistinct(categoryRows.map((r) => r.category)),
    datasets: sortedDistinct(datasetRows.map((r) => r.dataset)),
    lines: out.map(({ runLastAt: _runLastAt, verifySteps: _verifySteps, ...line }) => line),
    baselines,
  };
}
