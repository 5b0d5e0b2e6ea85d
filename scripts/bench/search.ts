/**
 * Bench scenario `search`: latency of `GET /api/search?q=` (the top bar's global search) with
 * 40,000 runs (`--full`: 100,000), seeded by one SQL insert (test/support/seed-runs.ts) plus an
 * UPDATE giving every run tags and every 20th run notes, and 2,000 checkpoint artifacts. The
 * queries mix rare and common matches, tags, notes, a miss and a two-letter query (no trigram
 * index help). Target (issue 25): p95 < 100 ms at 40,000 runs. Figures printed, never asserted.
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

/** The queries, with what each exercises. */
const QUERIES: Array<[string, string]> = [
  ["bench-12345", "one run by key"],
  ["run 3999", "a few runs by name"],
  ["run 1", "~11% of runs by name (broad)"],
  ["tp3", "a tag on 1/8 of runs"],
  ["zebracorn 77", "notes words"],
  ["ckpt-0042", "checkpoint URI"],
  ["nothing-matches-this", "a miss"],
  ["ru", "two letters (no trigram help)"],
];

async function runSearch({
  full,
  log,
}: {
  full: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const runs = full ? 100_000 : 40_000;
  const env = await startBenchEnvironment({ server: true, log });
  log(`seeding ${fmtInt(runs)} runs, tags, notes and 2,000 checkpoints by SQL`);
  const hostId = await seedRunningRuns(env.pool, runs, Date.now(), "bench");
  await env.pool.query(
    `UPDATE "Run" SET tags = ARRAY['tp' || (id % 8), 'sweep-' || (id % 50)],
                      notes = CASE WHEN id % 20 = 0 THEN 'zebracorn ' || id || ' MTP off, long context' END
      WHERE "hostId" = $1`,
    [hostId],
  );
  await env.pool.query(
    `INSERT INTO "Artifact" ("runId", kind, uri, ts)
     SELECT r.id, 'checkpoint', 's3://bucket/ckpt-' || lpad(r.id::text, 4, '0') || '/model.safetensors', now()
       FROM "Run" r WHERE r.id <= 2000`,
  );
  await env.pool.query(`VACUUM ANALYZE "Run"`);
  await env.pool.query(`VACUUM ANALYZE "Artifact"`);
  const headers = { authorization: `Bearer ${env.token}` };
  const rounds = 20;
  const all: number[] = [];
  const rows: Array<[string, string]> = [];
  for (const [q, what] of QUERIES) {
    let hits = 0;
    const times = await timeCalls(rounds, async () => {
      const res = await fetch(`${env.server!.url}/api/search?q=${encodeURIComponent(q)}`, {
        headers,
      });
      const text = await res.text();
      if (!res.ok)
        throw new Error(`GET /api/search?q=${q}: HTTP ${res.status} ${text.slice(0, 200)}`);
      const body = JSON.parse(text) as Record<string, unknown>;
      hits = Object.values(body).reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : 0), 0);
    });
    all.push(...times);
    rows.push([
      `"${q}" (${what}), ${hits} hits`,
      `${fmt(percentile(times, 0.5), 1)} / ${fmt(percentile(times, 0.95), 1)} ms`,
    ]);
  }
  const sorted = Float64Array.from(all).sort();
  printTable(
    `search: ${fmtInt(runs)} runs (${rounds} calls per query after a warm-up; median / p95; machine shared with other work: noisy)`,
    [
      ...rows,
      [
        "all queries (target p95 < 100 ms at 40,000 runs)",
        `${fmt(percentile(sorted, 0.5), 1)} / ${fmt(percentile(sorted, 0.95), 1)} ms`,
      ],
    ],
    log,
  );
}

/** The `search` scenario: GET /api/search at 40k (100k with --full) runs. */
export const scenario: Scenario = {
  name: "search",
  description: "GET /api/search (global search) with 40,000 runs (--full: 100,000) seeded by SQL",
  run: runSearch,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
