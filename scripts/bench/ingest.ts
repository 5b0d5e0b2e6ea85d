/**
 * Bench scenario `ingest` (`npm run bench ingest`, or alone `npx tsx scripts/bench/ingest.ts`):
 * `run.metrics` ingest over /ws/ingest against the honest limits, measured in one run on the
 * same rows (scripts/bench/ingest/workload.ts: `--workers` runs × `--frames` frames × `--points`
 * points of `--keys` keys):
 *   (a) Pitwall: `--workers` sockets, each pushing its own run, ≤ `--window` frames unacked;
 *       points/s counts acked points (an ack follows COMMIT) from release to the last ack;
 *   (b) COPY of the same rows into a fresh table with MetricPoint's columns and primary key,
 *       one COPY per worker in parallel, text encoded before the clock starts;
 *   (c) a bare `INSERT … SELECT FROM unnest(…)` of the same rows, one statement per frame;
 *   (d) Prometheus Pushgateway (when `prometheus-pushgateway` is installed): `--workers` clients
 *       POSTing one body of `--points` distinct series per frame (it keeps the latest value per
 *       series, in memory only).
 * Each round runs (a)–(d) back to back on empty metric tables, after a warm-up of `--warmup`
 * frames per worker pushed to Pitwall (runs of their own, truncated before the clock starts) and
 * to the Pushgateway; `--full` runs 3 rounds (more frames) and reports the median of the
 * per-round ratios, `--quick` one. Targets (issue 10):
 * Pitwall ≥ 0.75 × COPY and ≥ 2 × Pushgateway. After (a) every stored row is compared with the
 * COPY table (PASS/FAIL, exit 1 on FAIL); the figures are printed, never asserted.
 * Flags: --workers 8 --frames 40 (100 with --full) --points 1000 --keys 10 --window 4 --warmup 10 --rounds 1 (3) --seed 1
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import pg from "pg";

import { copyLoad, pushgatewayBinary, startPushgateway, unnestLoad } from "./ingest/anchors";
import { openWorker, pushClient, type Worker } from "./ingest/workers";
import { parseIngestOptions, type IngestOptions } from "./ingest/workload";
import {
  fmt,
  fmtInt,
  isMain,
  onCleanup,
  percentile,
  printTable,
  runStandalone,
  startBenchEnvironment,
  treeCpuS,
  type Scenario,
} from "./support";

/** The `ingest` scenario: run.metrics over /ws/ingest vs COPY, unnest and Pushgateway on the same rows, with an exactly-once check. */
export const scenario: Scenario = {
  name: "ingest",
  description:
    "run.metrics over /ws/ingest (8 workers, 1,000 points a frame) vs COPY, unnest and Pushgateway of the same rows; exactly-once check",
  run: runIngest,
};

interface Round {
  pitwallPerS: number;
  copyPerS: number;
  unnestPerS: number;
  pushPerS: number | null;
  serverCpuS: number;
  postgresCpuS: number;
  ackP50Ms: number;
  ackP99Ms: number;
  checks: Array<[string, boolean, string]>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length
    ? s.length % 2
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
    : NaN;
};

async function runIngest({
  full,
  log,
}: {
  full: boolean;
  log: (line: string) => void;
}): Promise<void> {
  const opts = parseIngestOptions(full);
  const total = opts.workers * opts.frames * opts.points;
  log(
    `${opts.rounds} round(s) of ${opts.workers} workers × ${opts.frames} frames × ${opts.points} points (${opts.keys} keys) = ${fmtInt(total)} points, window ${opts.window}, after a warm-up of ${opts.warmup} frames per worker`,
  );
  const env = await startBenchEnvironment({ server: true, log });
  const server = env.server!;
  // One connection per anchor worker (the environment's pool has two).
  const db = new pg.Pool({ connectionString: env.databaseUrl, max: opts.workers + 1 });
  db.on("error", () => undefined);
  onCleanup("anchor pool", () => db.end());
  const binary = pushgatewayBinary();
  const gateway = binary ? await startPushgateway(binary) : null;
  if (!gateway)
    log(
      "prometheus-pushgateway is not installed (apt-get install -y prometheus-pushgateway): the Pushgateway comparison is skipped",
    );

  const rounds: Round[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    log(`round ${r + 1}/${opts.rounds}: Pitwall, COPY, unnest${gateway ? ", Pushgateway" : ""}`);
    rounds.push(await runRound(opts, r, env, db, gateway?.url ?? null));
  }
  report(opts, rounds, log);
  if (!rounds.every((rd) => rd.checks.every(([, ok]) => ok))) {
    const serverErrors = server.logs.filter((l) => /"level":(50|60)/.test(l)).slice(-5);
    if (serverErrors.length)
      log(`server errors:\n  ${serverErrors.map((l) => l.slice(0, 800)).join("\n  ")}`);
    throw new Error("ingest verification FAILED");
  }
}

async function runRound(
  opts: IngestOptions,
  round: number,
  env: Awaited<ReturnType<typeof startBenchEnvironment>>,
  db: pg.Pool,
  gatewayUrl: string | null,
): Promise<Round> {
  const server = env.server!;
  const total = opts.workers * opts.frames * opts.points;
  const wsUrl = server.url.replace(/^http/, "ws");
  const stamp = `${Date.now().toString(36)}-r${round}`;
  if (opts.warmup > 0) {
    // Warm-up, not measured: the same workload to runs of its own, then to the Pushgateway.
    const warm = { ...opts, frames: opts.warmup };
    const warmers: Worker[] = [];
    for (let w = 0; w < opts.workers; w++)
      warmers.push(await openWorker(warm, w, wsUrl, env.token, `bench-${stamp}-warm-w${w}`));
    await Promise.all(warmers.map((wk) => wk.go()));
    warmers.forEach((wk) => wk.close());
    if (gatewayUrl)
      await Promise.all(
        Array.from({ length: opts.workers }, (_, w) => pushClient(warm, w, gatewayUrl)),
      );
  }
  // Every round starts from empty metric tables, like the anchors' fresh tables.
  await db.query(`TRUNCATE "MetricRow", "MetricBlock", "MetricTier", "MetricNonFinite"`);
  if ((await db.query(`SELECT to_regclass('"MetricSeries"') AS t`)).rows[0].t)
    await db.query(`TRUNCATE "MetricSeries"`);
  await db.query("CHECKPOINT");

  // (a) Pitwall
  const workers: Worker[] = [];
  for (let w = 0; w < opts.workers; w++)
    workers.push(await openWorker(opts, w, wsUrl, env.token, `bench-${stamp}-w${w}`));
  const perf = process.env.PERF_OUT
    ? (await import("node:child_process")).spawn(
        "perf",
        ["record", "-F", "999", "-a", "-g", "-o", process.env.PERF_OUT],
        { stdio: "ignore" },
      )
    : null;
  if (perf) await new Promise((r) => setTimeout(r, 1000));
  const srv0 = treeCpuS(server.serverPid!) ?? NaN;
  const pg0 = treeCpuS(env.postgresPid) ?? NaN;
  const t0 = performance.now();
  const results = await Promise.all(workers.map((wk) => wk.go()));
  const wallS = (Math.max(...results.map((x) => x.lastAckAt)) - t0) / 1000;
  const serverCpuS = (treeCpuS(server.serverPid!) ?? NaN) - srv0;
  const postgresCpuS = (treeCpuS(env.postgresPid) ?? NaN) - pg0;
  workers.forEach((wk) => wk.close());
  const acked = results.reduce((a, x) => a + x.framesAcked, 0) * opts.points;
  const latencies = Float64Array.from(results.flatMap((x) => x.latenciesMs)).sort();

  if (perf) {
    perf.kill("SIGINT");
    await new Promise((r) => perf.once("exit", r));
  }
  if (process.env.ONLY_PITWALL) {
    console.log("pitwall", acked / wallS, (serverCpuS / total) * 1e6, (postgresCpuS / total) * 1e6);
    process.exit(0);
  }
  const runIds = (
    await db.query<{ id: number; key: string }>(
      `SELECT id, key FROM "Run" WHERE key = ANY($1::text[])`,
      [workers.map((wk) => wk.runKey)],
    )
  ).rows;
  const idOf = new Map(runIds.map((x) => [x.key, x.id]));
  const ids = workers.map((wk) => idOf.get(wk.runKey) ?? -1);

  // (b) COPY, (c) unnest, (d) Pushgateway
  const copyS = await copyLoad(db, opts, ids, "bench_copy_point");
  const unnestS = await unnestLoad(db, opts, ids, "bench_unnest_point");
  let pushPerS: number | null = null;
  if (gatewayUrl) {
    const p0 = performance.now();
    const ends = await Promise.all(
      Array.from({ length: opts.workers }, (_, w) => pushClient(opts, w, gatewayUrl)),
    );
    pushPerS = total / ((Math.max(...ends) - p0) / 1000);
  }

  // Exactly once and unaltered: MetricPoint equals the COPY of what was sent; tiers count every point.
  const cols = `"runId", key, step, value, ts`;
  const diff = (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ((SELECT ${cols} FROM "MetricPoint" EXCEPT ALL SELECT ${cols} FROM bench_copy_point) UNION ALL (SELECT ${cols} FROM bench_copy_point EXCEPT ALL SELECT ${cols} FROM "MetricPoint")) d`,
    )
  ).rows[0]!.n;
  const tierCount = Number(
    (
      await db.query(
        `SELECT coalesce(sum(n + "nonFinite"), 0)::int8 AS c FROM "MetricTier" t JOIN "MetricSeries" s USING ("runId", key) WHERE t.bits = s."topBits" AND t."runId" = ANY($1::int[])`,
        [ids],
      )
    ).rows[0].c,
  );
  const errors = results.flatMap((x) => x.errors);
  const dupAcks = results.reduce((a, x) => a + x.duplicateAcks, 0);
  await db.query(`DROP TABLE bench_copy_point; DROP TABLE bench_unnest_point`);
  return {
    pitwallPerS: acked / wallS,
    copyPerS: total / copyS,
    unnestPerS: total / unnestS,
    pushPerS,
    serverCpuS,
    postgresCpuS,
    ackP50Ms: percentile(latencies, 0.5),
    ackP99Ms: percentile(latencies, 0.99),
    checks: [
      [
        "every frame acked once, no errors",
        acked === total && dupAcks === 0 && errors.length === 0,
        `${fmtInt(acked)}/${fmtInt(total)} points acked, ${dupAcks} duplicate acks, ${errors.length} errors${errors.length ? ` (${errors[0]})` : ""}`,
      ],
      ["MetricPoint = the COPY of what was sent", diff === 0, `${fmtInt(diff)} rows differ`],
      [
        "coarsest tier counts every point",
        tierCount === total,
        `${fmtInt(tierCount)} vs ${fmtInt(total)}`,
      ],
    ],
  };
}

function report(opts: IngestOptions, rounds: Round[], log: (line: string) => void): void {
  const total = opts.workers * opts.frames * opts.points;
  const perS = (x: number | null) => (x === null ? "skipped" : `${fmtInt(x)}/s`);
  for (const [i, rd] of rounds.entries()) {
    printTable(
      `Round ${i + 1} — ${new Date().toISOString().slice(0, 16)}Z, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}, ${fmtInt(total)} points`,
      [
        ["(a) Pitwall run.metrics over /ws/ingest, acked points/s", perS(rd.pitwallPerS)],
        ["(b) COPY into a fresh keyed table, rows/s", perS(rd.copyPerS)],
        ["(c) INSERT … unnest, one statement per frame, rows/s", perS(rd.unnestPerS)],
        ["(d) Pushgateway, samples/s", perS(rd.pushPerS)],
        ["Pitwall ack latency p50 / p99", `${fmt(rd.ackP50Ms, 0)} / ${fmt(rd.ackP99Ms, 0)} ms`],
        [
          "Pitwall CPU per point: server / PostgreSQL",
          `${fmt((rd.serverCpuS / total) * 1e6, 1)} / ${fmt((rd.postgresCpuS / total) * 1e6, 1)} µs`,
        ],
        ...rd.checks.map(([name, ok, detail]): [string, string] => [
          `${ok ? "PASS" : "FAIL"}  ${name}`,
          detail,
        ]),
      ],
      log,
    );
  }
  const ratio = (f: (rd: Round) => number | null) => {
    const xs = rounds.map(f).filter((x): x is number => x !== null);
    return xs.length ? median(xs) : NaN;
  };
  const vsCopy = ratio((rd) => rd.pitwallPerS / rd.copyPerS);
  const vsPush = ratio((rd) => (rd.pushPerS === null ? null : rd.pitwallPerS / rd.pushPerS));
  printTable(
    `Ingest vs its anchors, median of ${rounds.length} round(s) (figures printed, never asserted; the machine may be shared)`,
    [
      ["Pitwall points/s (median)", fmtInt(median(rounds.map((rd) => rd.pitwallPerS)))],
      ["Pitwall / COPY (target ≥ 0.75)", `${fmt(vsCopy, 2)} ×`],
      [
        "Pitwall / unnest",
        `${fmt(
          ratio((rd) => rd.pitwallPerS / rd.unnestPerS),
          2,
        )} ×`,
      ],
      [
        "Pitwall / Pushgateway (target ≥ 2)",
        Number.isNaN(vsPush) ? "skipped (not installed)" : `${fmt(vsPush, 2)} ×`,
      ],
    ],
    log,
  );
}

if (isMain(import.meta.url)) await runStandalone(scenario);
