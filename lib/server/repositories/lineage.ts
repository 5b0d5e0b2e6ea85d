import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { DEFAULT_CHECKPOINT_LIMIT, MAX_CHECKPOINT_LIMIT } from "@/lib/api/checkpoints";
import { isoTime } from "@/lib/iso-time";
import { stepValue } from "@/lib/metrics/steps";
import { aggregateTau } from "@/lib/metrics/tau";
import {
  CHECKPOINT_CONFIG_KEYS,
  type CheckpointBenchmark,
  type CheckpointConfigKey,
  type CheckpointEval,
  type CheckpointLineageView,
  type CheckpointListView,
  type CheckpointSummary,
  type LineageRun,
} from "@/lib/view-models/lineage";

import { deriveState } from "./runs";

/**
 * Checkpoint lineage: which training run produced a checkpoint (artifact of kind `checkpoint`),
 * which eval runs scored it (eval results naming its URI) and which benchmark runs served it
 * (config `checkpoint`, or `model` / `modelPath`, equal to the URI). See lib/view-models/lineage.ts.
 *
 * Indexes: artifacts and eval results are found through their `uri` / `checkpointUri` indexes.
 * Benchmark runs are matched with jsonb containment (`config @> '{"checkpoint": "<uri>"}'`), the
 * form the GIN index on "Run".config (jsonb_path_ops) serves.
 */

const lineageRunSelect = {
  id: true,
  name: true,
  kind: true,
  status: true,
  lastPushAt: true,
  stallAfterS: true,
  startedAt: true,
  config: true,
  host: { select: { name: true } },
} satisfies Prisma.RunSelect;

type LineageRunRow = Prisma.RunGetPayload<{ select: typeof lineageRunSelect }>;

function toLineageRun(r: LineageRunRow, now: Date): LineageRun {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    state: deriveState(r.status, r.lastPushAt, r.stallAfterS, now),
    host: r.host.name,
    startedAt: isoTime(r.startedAt),
  };
}

function configString(config: Prisma.JsonValue, key: string): string | null {
  if (!config || typeof config !== "object" || Array.isArray(config)) return null;
  const v = (config as Record<string, unknown>)[key];
  return typeof v === "string" && v.length > 0 ? v : typeof v === "number" ? String(v) : null;
}

/** Draft settings as stored (a flat object of scalars), keys sorted (jsonb keeps its own order); anything else as {}. */
function draftOf(v: unknown): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const entries = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [k, x] of entries)
      if (x === null || typeof x === "string" || typeof x === "number" || typeof x === "boolean")
        out[k] = x;
  }
  return out;
}

/** Sums of eval results per (run, draft settings), as {@link evalGroups} reads them. */
interface EvalGroupRow {
  uri: string;
  runId: number;
  draft: unknown;
  verifySteps: number;
  acceptedTokens: number;
  results: number;
  datasets: string[];
  step: bigint | null;
  label: string | null;
  lastTs: Date;
}

/** Eval results naming any of `uris`, summed per (uri, run, draft settings); via the checkpointUri index. */
async function evalGroups(db: PrismaClient, uris: readonly string[]): Promise<EvalGroupRow[]> {
  if (uris.length === 0) return [];
  return db.$queryRaw<EvalGroupRow[]>`
    SELECT "checkpointUri" AS uri, "runId", draft,
           sum("verifySteps")::float8 AS "verifySteps", sum("acceptedTokens")::float8 AS "acceptedTokens", count(*)::int AS results,
           coalesce(array_agg(DISTINCT dataset ORDER BY dataset) FILTER (WHERE dataset IS NOT NULL), '{}') AS datasets,
           max("checkpointStep") AS step, max("checkpointLabel") AS label, max(ts) AS "lastTs"
      FROM "EvalResult"
     WHERE "checkpointUri" = ANY(${[...uris]}::text[])
     GROUP BY "checkpointUri", "runId", draft`;
}

/** τ of summed counts through lib/metrics/tau.ts; null when the sums are not valid counts. */
function tauOfSums(g: { verifySteps: number; acceptedTokens: number }): number | null {
  if (!(g.verifySteps > 0) || !(g.acceptedTokens >= 0)) return null;
  return (
    aggregateTau([{ verifySteps: g.verifySteps, acceptedTokens: g.acceptedTokens }])?.tau ?? null
  );
}

/** Runs by id with what lineage shows of them. */
async function lineageRuns(
  db: PrismaClient,
  ids: Iterable<number>,
): Promise<Map<number, LineageRunRow>> {
  const list = [...new Set(ids)];
  if (list.length === 0) return new Map();
  const rows = await db.run.findMany({ where: { id: { in: list } }, select: lineageRunSelect });
  return new Map(rows.map((r) => [r.id, r]));
}

/** JSON documents `{"<key>": uri}` for each config key, for `config @> …` containment. */
function containmentDocs(uri: string): Record<CheckpointConfigKey, string> {
  return Object.fromEntries(
    CHECKPOINT_CONFIG_KEYS.map((k) => [k, JSON.stringify({ [k]: uri })]),
  ) as Record<CheckpointConfigKey, string>;
}

/**
 * The lineage of the checkpoint at `uri` as of `now` (run states derive from it). A URI nothing
 * references gives empty sections (a producer, eval or benchmark may still arrive), not an error.
 */
export async function getCheckpointLineage(
  db: PrismaClient,
  uri: string,
  now: Date = new Date(),
): Promise<CheckpointLineageView> {
  const docs = containmentDocs(uri);
  const [artifacts, groups, served] = await Promise.all([
    db.artifact.findMany({
      where: { uri, kind: "checkpoint" },
      orderBy: [{ ts: "asc" }, { id: "asc" }],
      select: { step: true, sizeBytes: true, ts: true, run: { select: lineageRunSelect } },
    }),
    evalGroups(db, [uri]),
    db.$queryRaw<Array<{ id: number; matchedBy: CheckpointConfigKey }>>`
      SELECT id, CASE WHEN config @> ${docs.checkpoint}::jsonb THEN 'checkpoint'
                      WHEN config @> ${docs.model}::jsonb THEN 'model' ELSE 'modelPath' END AS "matchedBy"
        FROM "Run"
       WHERE kind = 'benchmark'
         AND (config @> ${docs.checkpoint}::jsonb OR config @> ${docs.model}::jsonb OR config @> ${docs.modelPath}::jsonb)`,
  ]);
  const runs = await lineageRuns(db, [...groups.map((g) => g.runId), ...served.map((s) => s.id)]);
  const stats = await pointStats(
    db,
    served.map((s) => s.id),
  );

  const scoredBy: CheckpointEval[] = [];
  for (const g of groups) {
    const run = runs.get(g.runId);
    const tau = tauOfSums(g);
    if (!run || tau === null) continue;
    scoredBy.push({
      run: toLineageRun(run, now),
      draft: draftOf(g.draft),
      datasets: g.datasets,
      results: g.results,
      verifySteps: g.verifySteps,
      acceptedTokens: g.acceptedTokens,
      tau,
      checkpointStep: g.step === null ? null : stepValue(g.step),
      checkpointLabel: g.label,
      lastTs: isoTime(g.lastTs),
    });
  }
  scoredBy.sort((a, b) => b.tau - a.tau || a.run.id - b.run.id);

  const servedBy: CheckpointBenchmark[] = [];
  for (const s of served) {
    const run = runs.get(s.id);
    if (!run) continue;
    const st = stats.get(s.id);
    servedBy.push({
      run: toLineageRun(run, now),
      matchedBy: s.matchedBy,
      model: configString(run.config, "model"),
      engine: configString(run.config, "engine"),
      engineVersion: configString(run.config, "engineVersion"),
      pointCount: st?.count ?? 0,
      peakOutputTokPerS: st?.peak ?? null,
    });
  }
  servedBy.sort(
    (a, b) => Date.parse(b.run.startedAt) - Date.parse(a.run.startedAt) || b.run.id - a.run.id,
  );

  const producedBy = artifacts.map((a) => ({
    run: toLineageRun(a.run, now),
    step: a.step === null ? null : stepValue(a.step),
    sizeBytes: a.sizeBytes,
    ts: isoTime(a.ts),
  }));
  const evalStep = scoredBy.find((e) => e.checkpointStep !== null)?.checkpointStep ?? null;
  return {
    uri,
    step: producedBy.find((p) => p.step !== null)?.step ?? evalStep,
    label: scoredBy.find((e) => e.checkpointLabel !== null)?.checkpointLabel ?? null,
    producedBy,
    scoredBy,
    servedBy,
    bestTau: scoredBy[0]?.tau ?? null,
  };
}

interface PointStats {
  count: number;
  peak: number | null;
}

/** Point count and peak finite output tok/s (points with completed > 0) per run. */
async function pointStats(
  db: PrismaClient,
  runIds: readonly number[],
): Promise<Map<number, PointStats>> {
  if (runIds.length === 0) return new Map();
  // NaN sorts above every number in Postgres: max() must skip non-finite values explicitly.
  const rows = await db.$queryRaw<Array<{ runId: number; count: number; peak: number | null }>>`
    SELECT "runId", count(*)::int AS count,
           max("outputTokPerS") FILTER (WHERE "outputTokPerS" <> 'NaN'::float8 AND "outputTokPerS" < 'Infinity'::float8 AND coalesce(completed, 1) > 0) AS peak
      FROM "BenchmarkPoint" WHERE "runId" = ANY(${[...runIds]}::int4[]) GROUP BY "runId"`;
  return new Map(rows.map((r) => [r.runId, { count: r.count, peak: r.peak }]));
}

/**
 * Checkpoints newest first (by the earliest time anything referenced them), at most `limit`
 * (default 100, at most 500). A checkpoint is any URI reported as a `checkpoint` artifact, named by
 * an eval result, or set as `checkpoint` in a benchmark run's config; `model` / `modelPath`
 * values only count towards the benchmarks of a URI known that way (they usually name models).
 */
export async function listCheckpoints(
  db: PrismaClient,
  opts: { limit?: number } = {},
): Promise<CheckpointListView> {
  const limit = Math.min(
    MAX_CHECKPOINT_LIMIT,
    Math.max(1, Math.floor(opts.limit ?? DEFAULT_CHECKPOINT_LIMIT)),
  );
  const candidates = await db.$queryRaw<Array<{ uri: string; firstSeenAt: Date }>>`
    WITH refs AS (
      SELECT uri, min(ts) AS seen FROM "Artifact" WHERE kind = 'checkpoint' GROUP BY uri
      UNION ALL
      SELECT "checkpointUri", min(ts) FROM "EvalResult" WHERE "checkpointUri" IS NOT NULL GROUP BY "checkpointUri"
      UNION ALL
      SELECT config ->> 'checkpoint', min("startedAt") FROM "Run"
       WHERE kind = 'benchmark' AND jsonb_typeof(config -> 'checkpoint') = 'string' GROUP BY 1
    )
    SELECT uri, min(seen) AS "firstSeenAt" FROM refs GROUP BY uri ORDER BY 2 DESC, 1 LIMIT ${limit}`;
  const uris = candidates.map((c) => c.uri);
  if (uris.length === 0) return { checkpoints: [], limit };

  const [producers, groups, benchmarks] = await Promise.all([
    db.$queryRaw<
      Array<{ uri: string; step: bigint | null; runId: number; runName: string; n: number }>
    >`
      SELECT DISTINCT ON (a.uri) a.uri, a.step, a."runId", r.name AS "runName", count(*) OVER (PARTITION BY a.uri)::int AS n
        FROM "Artifact" a JOIN "Run" r ON r.id = a."runId"
       WHERE a.kind = 'checkpoint' AND a.uri = ANY(${uris}::text[])
       ORDER BY a.uri, a.ts, a.id`,
    evalGroups(db, uris),
    // One pass over the benchmark runs: each run's three candidate values looked up in the URI set.
    db.$queryRaw<Array<{ uri: string; n: number }>>`
      SELECT v.j #>> '{}' AS uri, count(DISTINCT r.id)::int AS n
        FROM "Run" r
       CROSS JOIN LATERAL (VALUES (r.config -> 'checkpoint'), (r.config -> 'model'), (r.config -> 'modelPath')) AS v(j)
       WHERE r.kind = 'benchmark' AND jsonb_typeof(v.j) = 'string' AND (v.j #>> '{}') = ANY(${uris}::text[])
       GROUP BY 1`,
  ]);
  const producerOf = new Map(producers.map((p) => [p.uri, p]));
  const benchOf = new Map(benchmarks.map((b) => [b.uri, b.n]));
  const evalsOf = new Map<string, EvalGroupRow[]>();
  for (const g of groups) {
    const list = evalsOf.get(g.uri);
    if (list) list.push(g);
    else evalsOf.set(g.uri, [g]);
  }

  const checkpoints: CheckpointSummary[] = candidates.map((c) => {
    const p = producerOf.get(c.uri);
    const evals = evalsOf.get(c.uri) ?? [];
    let bestTau: number | null = null;
    for (const g of evals) {
      const tau = tauOfSums(g);
      if (tau !== null && (bestTau === null || tau > bestTau)) bestTau = tau;
    }
    const evalStep = evals.map((g) => g.step).find((s) => s !== null) ?? null;
    const step = p?.step ?? evalStep;
    return {
      uri: c.uri,
      step: step === null ? null : stepValue(step),
      firstSeenAt: isoTime(c.firstSeenAt),
      producer: p ? { runId: p.runId, runName: p.runName } : null,
      producerCount: p?.n ?? 0,
      evalRuns: new Set(evals.map((g) => g.runId)).size,
      evalResults: evals.reduce((n, g) => n + g.results, 0),
      bestTau,
      benchmarkRuns: benchOf.get(c.uri) ?? 0,
    };
  });
  return { checkpoints, limit };
}
