/**
 * Bench scenario `series`: latency of the chart API (`GET /api/runs/:id/metrics`) on one
 * metric key of 1M points (`--full`: 10M), answered from the pre-aggregated tiers, with a spike
 * and non-finite points that must come back. The points are loaded by SQL (generate_series) and
 * the tiers rebuilt from them (rebuildRunTiers), not pushed through ingest: this measures reads.
 * Anchor: the raw-row scan the API did before the tiers (a min/max per step bucket over every
 * stored row of the key, ≈ the old query's cost), timed directly in PostgreSQL.
 * Figures are printed, never asserted; the spike check prints MISSING when a reply lacks it.
 */
import { performance } from "node:perf_hooks";

import { rebuildRunTiers } from "@/lib/server/metric-store";

import {
  fmt,
  fmtInt,
  isMain,
  percentile,
  printTable,
  runStandalone,
  startBenchEnvironment,
  timeCalls,
  type Scenario,
} from "./support";

const SPIKE_VALUE = 1000;

async function runSeries({
  full,
  log,
}: {
  full: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const points = full ? 10_000_000 : 1_000_000;
  const env = await startBenchEnvironment({ server: true, log });
  const { pool } = env;
  const host = await pool.query<{ id: number }>(
    `INSERT INTO "Host" (name) VALUES ('bench-series') RETURNING id`,
  );
  const run = await pool.query<{ id: number }>(
    `INSERT INTO "Run" (key, name, kind, "hostId", "ownerHostId") VALUES ('bench-series', 'series', 'training', $1, $1) RETURNING id`,
    [host.rows[0]!.id],
  );
  const runId = run.rows[0]!.id;
  const spikeStep = Math.floor(points * 0.61803);
  log(
    `loading ${fmtInt(points)} points of 'loss' by SQL (spike ${SPIKE_VALUE} at step ${fmtInt(spikeStep)}, NaN every 100,003 steps)`,
  );
  let t0 = performance.now();
  await pool.query(
    // Stored as ingest stores an appending run: blocks of 100 points (a 1,000-point frame of 10 keys).
    `INSERT INTO "MetricBlock" ("runId", key, "firstStep", "lastStep", steps, "values", "tsMs")
     SELECT $1, 'loss', min(s), max(s), array_agg(s ORDER BY s), array_agg(v ORDER BY s), array_agg(ms ORDER BY s)
       FROM generate_series(0, $2::int8 - 1) AS s
      CROSS JOIN LATERAL (SELECT CASE WHEN s = $3 THEN ${SPIKE_VALUE} WHEN s % 100003 = 77 THEN 'NaN'::float8 ELSE 2.0 / (1 + s / 5000.0) + 0.05 * sin(s) END AS v,
                                 (extract(epoch FROM now()) * 1000)::int8 AS ms) AS x
      GROUP BY s / 100`,
    [runId, points, spikeStep],
  );
  const loadS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  await rebuildRunTiers(pool, runId);
  const tierS = (performance.now() - t0) / 1000;
  await pool.query(`VACUUM ANALYZE "MetricBlock"`);
  await pool.query(`VACUUM ANALYZE "MetricTier"`);
  const tierRows = (
    await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "MetricTier" WHERE "runId" = $1`,
      [runId],
    )
  ).rows[0]!.n;
  const nonFinite = Math.floor((points - 1 - 77) / 100003) + 1;

  const url = `${env.server!.url}/api/runs/${runId}/metrics`;
  const headers = { authorization: `Bearer ${env.token}` };
  let spikeMissing = 0;
  let nanMissing = 0;
  let lastShown = 0;
  let lastBytes = 0;
  const call = (query: string, expectSpike: boolean) => async () => {
    const res = await fetch(`${url}?${query}`, { headers });
    const text = await res.text();
    if (!res.ok) throw new Error(`GET ${query}: HTTP ${res.status} ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as {
      series: Array<{
        points: Array<{ step: number; value: number | { $num: string } }>;
        shown: number;
      }>;
    };
    const s = body.series[0]!;
    lastShown = s.shown;
    lastBytes = text.length;
    if (expectSpike && !s.points.some((p) => p.step === spikeStep && p.value === SPIKE_VALUE))
      spikeMissing++;
    if (
      !query.includes("fromStep") &&
      // The API sends NaN as {"$num":"NaN"} (lib/server/http.ts; it was the string "NaN" before).
      s.points.filter((p) => typeof p.value === "object" && p.value.$num === "NaN").length !==
        nonFinite
    )
      nanMissing++;
  };
  const rounds = 20;
  const whole = await timeCalls(rounds, call("maxPoints=1000", true));
  const wholeShown = lastShown;
  const wholeBytes = lastBytes;
  const zoom = await timeCalls(
    rounds,
    call(`maxPoints=1000&fromStep=${spikeStep - 400}&toStep=${spikeStep + 400}`, true),
  );
  const zoomShown = lastShown;
  const mid = await timeCalls(
    rounds,
    call(
      `maxPoints=1000&fromStep=${Math.floor(points / 10)}&toStep=${Math.floor(points / 2)}`,
      false,
    ),
  );

  // Anchor: what the API cost before the tiers — every stored row of the key read and bucketed.
  t0 = performance.now();
  await pool.query(
    `SELECT b, min(value), max(value) FROM (
       SELECT least(499, floor(step::float8 / $2 * 500))::int AS b, value FROM "MetricPoint"
        WHERE "runId" = $1 AND key = 'loss' AND value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)) x GROUP BY b`,
    [runId, points],
  );
  const rawScanMs = performance.now() - t0;

  const p = (a: Float64Array) =>
    `${fmt(percentile(a, 0.5), 1)} / ${fmt(percentile(a, 0.95), 1)} ms`;
  printTable(
    `series: chart API on ${fmtInt(points)} points (${rounds} calls each after a warm-up; median / p95; machine shared with other work: noisy)`,
    [
      [
        "load by SQL / tier rebuild",
        `${fmt(loadS, 1)} s / ${fmt(tierS, 1)} s (${fmtInt(tierRows)} tier rows)`,
      ],
      [`whole series, maxPoints 1000 (target < ${full ? 300 : 150} ms)`, p(whole)],
      ["  points returned / JSON bytes", `${fmtInt(wholeShown)} / ${fmtInt(wholeBytes)}`],
      ["zoom ±400 steps around the spike (raw rows)", `${p(zoom)} (${fmtInt(zoomShown)} points)`],
      ["range 10 %–50 % of the steps", p(mid)],
      [
        "spike present in every whole/zoom reply",
        spikeMissing === 0 ? "yes" : `MISSING in ${spikeMissing}`,
      ],
      [
        `all ${fmtInt(nonFinite)} NaN points in every whole reply`,
        nanMissing === 0 ? "yes" : `MISSING in ${nanMissing}`,
      ],
      ["anchor: raw-row scan (pre-tier cost), one query in PostgreSQL", `${fmt(rawScanMs, 0)} ms`],
    ],
    log,
  );
}

/** The `series` scenario: chart API latency at 1M (10M with --full) points, with the spike check. */
export const scenario: Scenario = {
  name: "series",
  description:
    "chart API latency on one metric of 1M points (--full: 10M), spike and NaN points checked, vs the raw-row scan",
  run: runSeries,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
