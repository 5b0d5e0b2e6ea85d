import { z } from "zod";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { aggregateTau, checkpointKey, draftSettingsKey, perPromptTau, tauByCategory, type TauAggregate, type TauCounts } from "@/lib/metrics/tau";
import { NotFoundError } from "@/lib/server/errors";
import { asSettings, tauBaselines } from "./baselines";
import type {
  CategoryTauView,
  CheckpointRefView,
  DraftSettingsView,
  EvalOverviewView,
  EvalRunRefView,
  EvalTableRow,
  RunCheckpointView,
  RunEvalsView,
  TauCountsView,
  TauLineView,
  TauPointView,
} from "@/lib/view-models/evals";
import { isoTime } from "@/lib/iso-time";

/** Draft-settings key of results that carry no settings. */
export const NO_DRAFT_KEY = "none";
/** Checkpoint key of results that name no checkpoint. */
export const NO_CHECKPOINT_KEY = "none";

// ---------------------------------------------------------------------------------------------
// Shared helpers

/** Orders checkpoints: step ascending (64-bit, missing last), then label (missing last), then first result time. */
function compareCheckpoints(a: { step: string | null; label: string | null; firstAt: string }, b: { step: string | null; label: string | null; firstAt: string }): number {
  if (a.step !== b.step) {
    if (a.step === null) return 1;
    if (b.step === null) return -1;
    const d = BigInt(a.step) - BigInt(b.step);
    if (d !== 0n) return d < 0n ? -1 : 1;
  }
  if (a.label !== b.label) {
    if (a.label === null) return 1;
    if (b.label === null) return -1;
    return a.label < b.label ? -1 : 1;
  }
  return a.firstAt < b.firstAt ? -1 : a.firstAt > b.firstAt ? 1 : 0;
}

/**
 * Key of the latest checkpoint: the highest step when any checkpoint has one (64-bit compare),
 * else the one scored most recently (latest `lastAt`, then latest `firstAt`); null for none.
 * Order of the list does not matter: "last in sort order" would pick a label or an unnamed one.
 */
function latestCheckpointKey(points: ReadonlyArray<{ key: string; step: string | null; firstAt: string; lastAt: string }>): string | null {
  let best: (typeof points)[number] | null = null;
  for (const p of points) {
    if (best === null) best = p;
    else if (p.step !== null || best.step !== null) {
      if (p.step !== null && (best.step === null || BigInt(p.step) > BigInt(best.step))) best = p;
    } else if (p.lastAt > best.lastAt || (p.lastAt === best.lastAt && p.firstAt > best.firstAt)) best = p;
  }
  return best?.key ?? null;
}

/** Items grouped by `keyOf`, groups in first-seen order. */
function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** A checkpoint's names (first non-null of its members) and its first/last result times. */
function checkpointRef(key: string, refs: ReadonlyArray<{ step: string | null; label: string | null; uri: string | null; first: Date; last: Date }>): CheckpointRefView {
  return {
    key,
    step: refs.find((m) => m.step !== null)?.step ?? null,
    label: refs.find((m) => m.label !== null)?.label ?? null,
    uri: refs.find((m) => m.uri !== null)?.uri ?? null,
    firstAt: isoTime(new Date(Math.min(...refs.map((m) => m.first.getTime())))),
    lastAt: isoTime(new Date(Math.max(...refs.map((m) => m.last.getTime())))),
  };
}

function keyOfCheckpoint(step: string | null, label: string | null, uri: string | null): string {
  return checkpointKey({ step: step ?? undefined, label: label ?? undefined, uri: uri ?? undefined }) ?? NO_CHECKPOINT_KEY;
}

function draftKey(draft: unknown): string {
  return draftSettingsKey(asSettings(draft)) ?? NO_DRAFT_KEY;
}

function stepText(step: bigint | null): string | null {
  return step === null ? null : step.toString();
}


/** τ and counts of an aggregate, with `results` overridden (group rows of SQL stand for many results). */
function countsView(agg: TauAggregate, results = agg.results): TauCountsView {
  return { tau: agg.tau, verifySteps: agg.verifySteps, acceptedTokens: agg.acceptedTokens, tokensProduced: agg.tokensProduced, results };
}

/** Unweighted mean of finite values, null when there are none. */
function meanOf(values: ReadonlyArray<number | null>): number | null {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v !== null && Number.isFinite(v)) {
      sum += v;
      n++;
    }
  }
  return n === 0 ? null : sum / n;
}

function sortedDistinct(values: ReadonlyArray<string | null>): string[] {
  return [...new Set(values.filter((v): v is string => v !== null))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The run that produced a checkpoint URI (holds its Artifact), with the artifact's step. */
interface CheckpointProducer {
  runId: number;
  step: bigint | null;
  training: boolean;
}

/**
 * For each URI, the run holding an Artifact with that URI: a `training` run first, then the
 * earliest artifact (ties: lowest artifact id). URIs no artifact has are absent.
 */
async function checkpointProducers(db: PrismaClient, uris: ReadonlyArray<string | null>): Promise<Map<string, CheckpointProducer>> {
  const wanted = [...new Set(uris.filter((u): u is string => u !== null))];
  const producer = new Map<string, CheckpointProducer>();
  if (wanted.length === 0) return producer;
  const artifacts = await db.artifact.findMany({
    where: { uri: { in: wanted } },
    select: { runId: true, uri: true, step: true, run: { select: { kind: true } } },
    orderBy: [{ ts: "asc" }, { id: "asc" }],
  });
  for (const a of artifacts) {
    const current = producer.get(a.uri);
    const training = a.run.kind === "training";
    // Ordered by time: keep the first, unless a training run comes later and the first was not one.
    if (!current || (training && !current.training)) producer.set(a.uri, { runId: a.runId, step: a.step, training });
  }
  return producer;
}

// ---------------------------------------------------------------------------------------------
// One run

/** Options of {@link getRunEvals}: `draft` selects a draft-settings key (see {@link RunEvalsView.draft}). */
export const runEvalsQuery = z.object({ draft: z.string().min(1).max(10_000).optional() });
export type RunEvalsQuery = z.infer<typeof runEvalsQuery>;

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
export async function getRunEvals(db: PrismaClient, runId: number, query: RunEvalsQuery = {}, now: Date = new Date()): Promise<RunEvalsView> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  // A training run's own checkpoints, so results other runs pushed for them show on its page too.
  const ownCheckpoints = (await db.artifact.findMany({ where: { runId, kind: "checkpoint" }, select: { uri: true } })).map((a) => a.uri);
  const [raw, baselines] = await Promise.all([
    db.evalResult.findMany({
      where: ownCheckpoints.length > 0 ? { OR: [{ runId }, { checkpointUri: { in: ownCheckpoints } }] } : { runId },
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
    .map(([key, rows]) => ({ key, settings: asSettings(rows[0]!.draft), results: rows.length, verifySteps: rows.reduce((s, r) => s + r.verifySteps, 0) }))
    .sort((a, b) => b.verifySteps - a.verifySteps || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const draft = query.draft !== undefined && byDraft.has(query.draft) ? query.draft : (draftSettings[0]?.key ?? null);
  const selectedRows = draft === null ? [] : byDraft.get(draft)!;
  // A checkpoint named by URI only takes its step from the artifact of the run that saved it.
  const producer = await checkpointProducers(db, selectedRows.filter((r) => r.checkpointStep === null).map((r) => r.checkpointUri));
  const rows: ResultRow[] = selectedRows.map((r) => ({
    step: stepText(r.checkpointStep ?? (r.checkpointUri !== null ? producer.get(r.checkpointUri)?.step : null) ?? null),
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
    const categories = tauByCategory(members).map((g) => categoryView(g.key, members.filter((m) => m.category === g.key)));
    return {
      ...checkpointRef(key, members.map((m) => ({ step: m.step, label: m.label, uri: m.uri, first: m.ts, last: m.ts }))),
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
    const total: EvalTableRow = { ...base, total: true, category: null, tau: c.tau, verifySteps: c.verifySteps, acceptedTokens: c.acceptedTokens, tokensProduced: c.tokensProduced, results: c.results, prompts: c.prompts, meanOutputTokPerS: c.meanOutputTokPerS };
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
async function scoringRuns(db: PrismaClient, raw: ReadonlyArray<{ runId: number }>, runId: number): Promise<EvalRunRefView[]> {
  const ids = [...new Set(raw.map((r) => r.runId).filter((id) => id !== runId))].sort((a, b) => a - b);
  if (ids.length === 0) return [];
  return db.run.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, kind: true }, orderBy: { id: "asc" } });
}

// ---------------------------------------------------------------------------------------------
// Across runs

/** Filters of {@link getEvalOverview}: τ over one category only, results of one dataset only. */
export const evalOverviewQuery = z.object({
  category: z.string().min(1).max(200).optional(),
  dataset: z.string().min(1).max(200).optional(),
});
export type EvalOverviewQuery = z.infer<typeof evalOverviewQuery>;

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
function overviewLine(rows: readonly PlacedRow[], runs: ReadonlyMap<number, EvalRunRefView>): Pick<TauLineView, "attributedBy" | "datasets" | "evalRuns" | "points" | "latestKey" | "latestCategories"> {
  const byCheckpoint = groupBy(rows, (r) => keyOfCheckpoint(r.step, r.checkpointLabel, r.checkpointUri));
  const points: TauPointView[] = [...byCheckpoint.entries()].map(([key, members]) => ({
    ...checkpointRef(key, members.map((m) => ({ step: m.step, label: m.checkpointLabel, uri: m.checkpointUri, first: m.firstAt, last: m.lastAt }))),
    ...groupCounts(members),
    evalRunIds: [...new Set(members.map((m) => m.runId))].sort((a, b) => a - b),
  }));
  points.sort(compareCheckpoints);
  const latestKey = latestCheckpointKey(points);
  const latestRows = latestKey === null ? [] : (byCheckpoint.get(latestKey) ?? []);
  // tauByCategory orders the categories (no-category last); each one's counts are its rows summed.
  const latestCategories: CategoryTauView[] = tauByCategory(latestRows).map((g) => {
    const members = latestRows.filter((r) => r.category === g.key);
    return { category: g.key, ...groupCounts(members), prompts: members.reduce((s, m) => s + m.prompts, 0), meanOutputTokPerS: groupMeanTokPerS(members) };
  });
  const evalRunIds = [...new Set(rows.map((r) => r.runId))].sort((a, b) => a - b);
  return {
    attributedBy: rows.some((r) => r.byArtifact) ? "artifact" : "results",
    datasets: sortedDistinct(rows.map((r) => r.dataset)),
    evalRuns: evalRunIds.map((id) => runs.get(id)).filter((r): r is EvalRunRefView => r !== undefined),
    points,
    latestKey,
    latestCategories,
  };
}

/** Counts of a set of group rows: Σ counts → τ with lib/metrics/tau.ts; `results` is Σ of the groups' result counts. */
function groupCounts(rows: readonly GroupRow[]): TauCountsView {
  const agg = aggregateTau(rows) as TauAggregate;
  return countsView(agg, rows.reduce((s, r) => s + r.results, 0));
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
export async function getEvalOverview(db: PrismaClient, filters: EvalOverviewQuery = {}, now: Date = new Date()): Promise<EvalOverviewView> {
  const conditions: Prisma.Sql[] = [];
  if (filters.category !== undefined) conditions.push(Prisma.sql`category = ${filters.category}`);
  if (filters.dataset !== undefined) conditions.push(Prisma.sql`dataset = ${filters.dataset}`);
  const where = conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
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
    db.evalResult.findMany({ where: { category: { not: null } }, distinct: ["category"], select: { category: true } }),
    db.evalResult.findMany({ where: { dataset: { not: null } }, distinct: ["dataset"], select: { dataset: true } }),
    tauBaselines(db, filters.dataset ?? null),
  ]);

  // Which run produced each checkpoint URI.
  const producer = await checkpointProducers(db, groups.map((g) => g.checkpointUri));

  // Place each group on its line.
  const lines = new Map<number, { rows: PlacedRow[] }>();
  for (const g of groups) {
    const made = g.checkpointUri !== null ? producer.get(g.checkpointUri) : undefined;
    const lineRunId = made?.runId ?? g.runId;
    const step = g.checkpointStep ?? made?.step ?? null;
    const line = lines.get(lineRunId) ?? { rows: [] };
    line.rows.push({ ...g, step: step === null ? null : step.toString(), byArtifact: made !== undefined });
    lines.set(lineRunId, line);
  }

  const runIds = [...new Set([...lines.keys(), ...groups.map((g) => g.runId)])];
  const runRows = runIds.length === 0 ? [] : await db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, name: true, kind: true, archivedAt: true } });
  const runs = new Map<number, EvalRunRefView>(runRows.map((r) => [r.id, { id: r.id, name: r.name, kind: r.kind }]));
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
  out.sort((a, b) => b.runLastAt - a.runLastAt || a.run.id - b.run.id || b.verifySteps - a.verifySteps || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

  return {
    asOf: isoTime(now),
    filters: { category: filters.category ?? null, dataset: filters.dataset ?? null },
    categories: sortedDistinct(categoryRows.map((r) => r.category)),
    datasets: sortedDistinct(datasetRows.map((r) => r.dataset)),
    lines: out.map(({ runLastAt: _runLastAt, verifySteps: _verifySteps, ...line }) => line),
    baselines,
  };
}
