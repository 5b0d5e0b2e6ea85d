/**
 * Bench scenario `fleet` (`npm run bench fleet [--quick|--full]`; issue 22 item 1): a real fleet's
 * traffic (fleet/traffic.ts: per worker its own socket and host token, a 30-key step frame per
 * step, progress every 2 s, a heartbeat every 10 s, a tenth restarting every minute and re-sending
 * its last 50 steps, 1 % of steps out of order) against the production server on a fresh
 * embedded PostgreSQL, and against the anchor (fleet/anchor-loader.ts: a minimal durable loader
 * doing the same work on the same PostgreSQL).
 *
 * 1. Steady: `--workers` (quick 200, full 500) at 1 step/s for `--duration` s (quick 60, full
 *    300) into Pitwall: ack latency p50/p99/max from the scheduled send time, points/s, server and
 *    PostgreSQL CPU µs per point, idle and peak RSS, and the stored points checked against every
 *    step sent (0 lost, 0 duplicated). Target: p99 < 250 ms at the full load (500 × 30 = 15,000
 *    points/s).
 * 2. Ramp: the step rate per worker grows by ×1.5 per stage of `--stage` s (quick 10, full 20)
 *    until a stage's ack p99 reaches 250 ms or frames are still unacked 5 s after it; the last
 *    stage that passed is the highest sustainable rate. `--rounds` ramps each (quick 2, full 5),
 *    alternating which goes first. Target: Pitwall's rate >= 1.5 × the anchor's (every round).
 * Figures are printed, never asserted.
 */

import os from "node:os";
import { performance } from "node:perf_hooks";
import { PrismaPg } from "@prisma/adapter-pg";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";

import { startAnchor } from "./fleet/anchor";
import { benchLoopDelay, drive, latencyLine, openWorkers, ramp, trace } from "./fleet/drive";
import { parseOptions, RESTART_SHARE_PER_MIN, TARGET_P99_MS, TARGET_RATIO } from "./fleet/options";
import { tableWrites, writesLine } from "./fleet/table-writes";
import { FleetTally, KEYS_PER_STEP, latencyByKindText } from "./fleet/traffic";
import {
  fmt,
  fmtInt,
  isMain,
  machineTicks,
  memoryKb,
  mib,
  runStandalone,
  sleep,
  startBenchEnvironment,
  treeCpuS,
  type Scenario,
  type ScenarioOptions,
} from "./support";

async function fleet(opts: ScenarioOptions): Promise<void> {
  const o = parseOptions(opts.full);
  const log = opts.log;
  const env = await startBenchEnvironment({ server: true, log });
  const server = env.server!;
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: env.databaseUrl, max: 2 }),
  });
  const tokens: string[] = [];
  try {
    for (let i = 0; i < o.workers; i++)
      tokens.push((await createToken(prisma, `fleet-host-${String(i).padStart(3, "0")}`)).token);
  } finally {
    await prisma.$disconnect();
  }
  const anchor = await startAnchor(env.databaseUrl, tokens, log);
  const ticks0 = machineTicks();
  await sleep(1000);
  const ticks1 = machineTicks();
  const load =
    ticks0 && ticks1 ? (ticks1.busy - ticks0.busy) / Math.max(1, ticks1.total - ticks0.total) : NaN;
  log(
    `machine: ${os.cpus().length} cores, busy ${fmt(load * 100, 0)} % in the second before (loadavg ${os
      .loadavg()
      .map((x) => fmt(x, 2))
      .join(" ")})`,
  );

  // 1. Steady load into Pitwall.
  const idle = server.serverPid ? memoryKb(server.serverPid) : null;
  const tally = new FleetTally();
  const prefix = `fleet-steady-${Date.now()}`;
  const workers = await openWorkers(server.url, tokens, prefix, tally);
  log(
    `steady: ${o.workers} workers x 1 step/s x ${KEYS_PER_STEP} keys (${fmtInt(o.workers * KEYS_PER_STEP)} points/s) + progress/2 s + heartbeat/10 s for ${o.durationS} s; ${fmt(RESTART_SHARE_PER_MIN * 100, 0)} % restart per minute re-sending 50 steps; 1 % out of order`,
  );
  const cpuS0 = server.serverPid ? (treeCpuS(server.serverPid) ?? NaN) : NaN;
  const pgS0 = treeCpuS(env.postgresPid) ?? NaN;
  let peakRssKb = idle?.rssKb ?? 0;
  const writes0 = await tableWrites(env.pool);
  trace.begin();
  const loop = benchLoopDelay();
  const t0 = performance.now();
  const drained = await drive(
    workers,
    1,
    o.durationS,
    30_000,
    () =>
      (peakRssKb = Math.max(
        peakRssKb,
        (server.serverPid && memoryKb(server.serverPid)?.rssKb) || 0,
      )),
  );
  const elapsedS = (performance.now() - t0) / 1000;
  const serverCpuS = (server.serverPid ? (treeCpuS(server.serverPid) ?? NaN) : NaN) - cpuS0;
  const pgCpuS = (treeCpuS(env.postgresPid) ?? NaN) - pgS0;
  workers.forEach((w) => w.close());
  const l = latencyLine(tally);
  log(
    `  frames sent ${fmtInt(tally.framesSent)} | acked ${fmtInt(tally.framesAcked)} | abandoned by restarts ${fmtInt(tally.framesAbandoned)} | rejected ${[...tally.rejected].map(([c, n]) => `${c} x ${n}`).join(", ") || 0} | unexpected acks ${tally.unexpectedAcks}${drained ? "" : " | NOT all answered 30 s after the end"}`,
  );
  log(
    `  ${l.text} (target p99 < ${TARGET_P99_MS} ms: ${l.p99 < TARGET_P99_MS ? "met" : "NOT met"})`,
  );
  log(`    ${latencyByKindText(tally)}; ${loop()}`);
  await trace.report(log);
  log(
    `  points acked ${fmtInt(tally.pointsAcked)} = ${fmtInt(tally.pointsAcked / elapsedS)} points/s | CPU us per point: server ${fmt((serverCpuS * 1e6) / tally.pointsAcked, 1)}, PostgreSQL ${fmt((pgCpuS * 1e6) / tally.pointsAcked, 1)}`,
  );
  log(
    `  server RSS: idle ${mib(idle?.rssKb)} | peak ${mib(peakRssKb)} (limit idle + 150 MiB: ${peakRssKb - (idle?.rssKb ?? 0) <= 150 * 1024 ? "met" : "NOT met"})`,
  );
  await sleep(1500); // PostgreSQL flushes a backend's table counters at most once a second
  log(
    `  row writes per 1,000 points acked (pg_stat_user_tables; hot = updates without an index insert): ${writesLine(writes0, await tableWrites(env.pool), tally.pointsAcked)}`,
  );
  const stored = await env.pool.query<{ key: string; n: string; d: string }>(
    `SELECT r.key, count(*) AS n, count(DISTINCT (p.key, p.step)) AS d FROM "MetricPoint" p JOIN "Run" r ON r.id = p."runId" WHERE r.key LIKE $1 GROUP BY r.key`,
    [`${prefix}-%`],
  );
  const byRun = new Map(stored.rows.map((r) => [r.key, r]));
  let lost = 0;
  let dup = 0;
  for (const w of workers) {
    const r = byRun.get(w.runKey);
    const expected = w.stepsSent.size * KEYS_PER_STEP;
    lost += Math.max(0, expected - Number(r?.d ?? 0));
    dup += Number(r?.n ?? 0) - Number(r?.d ?? 0);
  }
  log(
    `  stored against sent: ${fmtInt(lost)} points lost, ${fmtInt(dup)} duplicated (of ${fmtInt(workers.reduce((s, w) => s + w.stepsSent.size, 0) * KEYS_PER_STEP)} distinct points sent)`,
  );

  // 2. Ramps, alternating the order per round.
  log(
    `ramp: x1.5 per ${o.stageS} s stage from 1 step/s/worker, ${o.workers} workers, pass = ack p99 < ${TARGET_P99_MS} ms and no backlog 5 s after; ${o.rounds} round(s)${o.rounds < 5 ? " (fewer than the 5 the issue asks for: use --full or --rounds 5)" : ""}`,
  );
  const ratios: number[] = [];
  for (let r = 0; r < o.rounds; r++) {
    const order = r % 2 === 0 ? (["anchor", "pitwall"] as const) : (["pitwall", "anchor"] as const);
    const got: Record<string, number> = {};
    for (const which of order)
      got[which] = await ramp(which, which === "anchor" ? anchor.url : server.url, tokens, o, log);
    const ratio = got.pitwall! / Math.max(1e-9, got.anchor!);
    ratios.push(ratio);
    log(
      `  round ${r + 1}: highest sustainable rate Pitwall ${fmtInt(got.pitwall! * o.workers * KEYS_PER_STEP)} points/s, anchor ${fmtInt(got.anchor! * o.workers * KEYS_PER_STEP)} points/s -> ${fmt(ratio, 2)} x`,
    );
  }
  const min = Math.min(...ratios);
  log(
    `fleet ratio Pitwall / anchor over ${ratios.length} round(s): min ${fmt(min, 2)} x, max ${fmt(Math.max(...ratios), 2)} x (target >= ${TARGET_RATIO} x: ${min >= TARGET_RATIO ? "met" : "NOT met"})`,
  );
}

/** The `fleet` scenario (see the module comment). */
export const scenario: Scenario = {
  name: "fleet",
  description:
    "a real fleet's small many-key frames (200 workers/60 s quick, 500/5 min full) with restarts and re-sends: ack p99 from the scheduled send, 0 lost/dup, RSS; then a ramp against a minimal durable loader",
  run: fleet,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
