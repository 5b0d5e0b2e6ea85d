/**
 * Bench scenario `overview`: latency and size of `GET /api/overview` (first page and a deep
 * page) and `GET /api/hosts` with 10,000 running runs (`--full`: 40,000), seeded by one SQL
 * insert (test/support/seed-runs.ts), not through ingest. Figures printed, never asserted.
 */
import { seedRunningRuns } from "@/test/support/seed-runs";

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

async function runOverview({
  full,
  log,
}: {
  full: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const runs = full ? 40_000 : 10_000;
  const env = await startBenchEnvironment({ server: true, log });
  log(`seeding ${fmtInt(runs)} running runs by SQL`);
  await seedRunningRuns(env.pool, runs, Date.now(), "bench");
  await env.pool.query(`VACUUM ANALYZE "Run"`);
  const headers = { authorization: `Bearer ${env.token}` };
  let bytes = 0;
  let shown = 0;
  let total = 0;
  const get = (path: string) => async () => {
    const res = await fetch(`${env.server!.url}${path}`, { headers });
    const text = await res.text();
    if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    bytes = text.length;
    const body = JSON.parse(text) as { active?: unknown[]; activeCounts?: { total: number } };
    shown = body.active?.length ?? 0;
    if (body.activeCounts) total = body.activeCounts.total;
  };
  const rounds = 20;
  const first = await timeCalls(rounds, get("/api/overview"));
  const firstBytes = bytes;
  const firstShown = shown;
  const activeTotal = total;
  const deep = await timeCalls(
    rounds,
    get(`/api/overview?offset=${Math.floor(runs / 2)}&limit=200`),
  );
  const deepShown = shown;
  const hosts = await timeCalls(rounds, get("/api/hosts"));
  const p = (a: Float64Array) =>
    `${fmt(percentile(a, 0.5), 1)} / ${fmt(percentile(a, 0.95), 1)} ms`;
  printTable(
    `overview: ${fmtInt(runs)} running runs (${rounds} calls each after a warm-up; median / p95; machine shared with other work: noisy)`,
    [
      ["GET /api/overview, first page (target < 200 ms)", p(first)],
      [
        "  runs on the page / active in all / JSON bytes",
        `${fmtInt(firstShown)} / ${fmtInt(activeTotal)} / ${fmtInt(firstBytes)}`,
      ],
      [
        `GET /api/overview?offset=${fmtInt(Math.floor(runs / 2))}&limit=200`,
        `${p(deep)} (${fmtInt(deepShown)} runs)`,
      ],
      ["GET /api/hosts", p(hosts)],
      ["anchor (issue 10, before): 10,000 runs", "7.6 s, 3.6 MB; 40,000: HTTP 500"],
    ],
    log,
  );
}

/** The `overview` scenario: overview and hosts API at 10k (40k with --full) running runs. */
export const scenario: Scenario = {
  name: "overview",
  description:
    "GET /api/overview and /api/hosts with 10,000 running runs (--full: 40,000) seeded by SQL",
  run: runOverview,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
