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
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import readline from "node:readline";
import { parseArgs } from "node:util";
import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";

import { summariseTrace } from "./fleet/trace-summary";
import { FleetTally, FleetWorker, KEYS_PER_STEP, latencyByKindText } from "./fleet/traffic";
import {
  fmt,
  fmtInt,
  isMain,
  machineTicks,
  memoryKb,
  mib,
  onCleanup,
  percentile,
  projectDir,
  runStandalone,
  sleep,
  startBenchEnvironment,
  treeCpuS,
  type Scenario,
  type ScenarioOptions,
} from "./support";

const TARGET_P99_MS = 250;
const TARGET_RATIO = 1.5;
const RESTART_SHARE_PER_MIN = 0.1;

interface FleetOptions {
  workers: number;
  durationS: number;
  stageS: number;
  rounds: number;
}

function parseOptions(full: boolean): FleetOptions {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      workers: { type: "string" },
      duration: { type: "string" },
      stage: { type: "string" },
      rounds: { type: "string" },
    },
    strict: false,
    allowPositionals: true,
  });
  const num = (v: unknown, dflt: number) =>
    typeof v === "string" && Number(v) > 0 ? Number(v) : dflt;
  return {
    workers: num(values.workers, full ? 500 : 200),
    durationS: num(values.duration, full ? 300 : 60),
    stageS: num(values.stage, full ? 20 : 10),
    rounds: num(values.rounds, full ? 5 : 2),
  };
}

/**
 * The server's ingest trace (PITWALL_INGEST_TRACE set when the bench starts: the server appends to
 * that file, lib/server/ingest-trace.ts). `begin` empties it; `report` prints the breakdown of what
 * was traced since (scripts/bench/fleet/trace-summary.ts). No-ops when unset.
 */
const trace = {
  file: process.env.PITWALL_INGEST_TRACE,
  begin(): void {
    if (this.file) fs.writeFileSync(this.file, "");
  },
  async report(log: (line: string) => void): Promise<void> {
    if (!this.file) return;
    await sleep(1200); // written once a second
    summariseTrace(this.file, (l) => log(`    ${l}`));
  },
};

/** The bench process's own event-loop delay over a phase (its lateness inflates every latency). */
function benchLoopDelay(): () => string {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return () => {
    h.disable();
    return `bench process event-loop delay p99 ${fmt(h.percentile(99) / 1e6, 1)} ms, max ${fmt(h.max / 1e6, 1)} ms`;
  };
}

/** Opens `n` workers on `url` (20 at a time), runs keys `<prefix>-<i>`. */
async function openWorkers(
  url: string,
  tokens: string[],
  prefix: string,
  tally: FleetTally,
): Promise<FleetWorker[]> {
  const workers = tokens.map((t, i) => new FleetWorker(url, t, i, `${prefix}-${i}`, tally));
  onCleanup(`${prefix} sockets`, async () => workers.forEach((w) => w.close()));
  for (let i = 0; i < workers.length; i += 20)
    await Promise.all(workers.slice(i, i + 20).map((w) => w.open()));
  return workers;
}

/**
 * Drives `workers` at `stepHz` for `durationS`, restarting RESTART_SHARE_PER_MIN of them per
 * minute (spread over the phase), then waits up to `drainMs` for the last acks.
 * Returns whether every frame was answered in time.
 */
async function drive(
  workers: FleetWorker[],
  stepHz: number,
  durationS: number,
  drainMs: number,
  onSecond?: () => void,
): Promise<boolean> {
  const t0 = performance.now() + 50;
  const end = t0 + durationS * 1000;
  workers.forEach((w, i) => w.schedule(t0, stepHz, i / workers.length));
  const restarts = Math.round(workers.length * RESTART_SHARE_PER_MIN * (durationS / 60));
  const restartAt = Array.from(
    { length: restarts },
    (_, k) => t0 + ((k + 0.5) / restarts) * durationS * 1000,
  );
  let nextRestart = 0;
  let nextSecond = t0 + 1000;
  const restarting: Promise<void>[] = [];
  while (performance.now() < end) {
    const now = performance.now();
    for (const w of workers) w.pump(now, end);
    while (nextRestart < restarts && restartAt[nextRestart]! <= now) {
      const w = workers[(nextRestart * 7919) % workers.length]!;
      nextRestart++;
      restarting.push(w.restart());
    }
    if (onSecond && now >= nextSecond) {
      nextSecond += 1000;
      onSecond();
    }
    await sleep(2);
  }
  await Promise.all(restarting);
  const drainStart = performance.now();
  while (workers.some((w) => w.pending > 0) && performance.now() - drainStart < drainMs)
    await sleep(50);
  return !workers.some((w) => w.pending > 0);
}

function latencyLine(t: FleetTally): { p50: number; p99: number; max: number; text: string } {
  const lat = Float64Array.from(t.latencies).sort();
  const p50 = percentile(lat, 0.5);
  const p99 = percentile(lat, 0.99);
  const max = lat[lat.length - 1] ?? NaN;
  return {
    p50,
    p99,
    max,
    text: `ack ms from the scheduled send (${fmtInt(lat.length)} samples): p50 ${fmt(p50, 1)} | p99 ${fmt(p99, 1)} | max ${fmt(max, 1)}`,
  };
}

/** Ramps one target; returns the highest step rate per worker (Hz) whose stage passed (0 when none). */
async function ramp(
  label: string,
  url: string,
  tokens: string[],
  o: FleetOptions,
  log: (line: string) => void,
): Promise<number> {
  const tally = new FleetTally();
  const workers = await openWorkers(url, tokens, `fleet-ramp-${label}-${Date.now()}`, tally);
  let passed = 0;
  try {
    for (let hz = 1; hz <= 5000; hz *= 1.5) {
      const stage = new FleetTally();
      Object.assign(tally, stage);
      if (label === "pitwall") trace.begin();
      const loop = benchLoopDelay();
      const drained = await drive(workers, hz, o.stageS, 5000);
      const loopText = loop();
      const l = latencyLine(tally);
      const ok = drained && l.p99 < TARGET_P99_MS && tally.rejected.size === 0;
      log(
        `  ${label.padEnd(7)} ${fmt(hz, 2).padStart(6)} steps/s/worker = ${fmtInt(hz * tokens.length * KEYS_PER_STEP).padStart(7)} points/s: p50 ${fmt(l.p50, 0)} | p99 ${fmt(l.p99, 0)} | max ${fmt(l.max, 0)} ms${drained ? "" : " | backlog after 5 s"}${tally.rejected.size ? ` | rejected ${[...tally.rejected].join(" ")}` : ""} -> ${ok ? "pass" : "FAIL"}`,
      );
      if (!ok || process.env.PITWALL_FLEET_VERBOSE) {
        log(`    ${latencyByKindText(tally)}; ${loopText}`);
        if (label === "pitwall") await trace.report(log);
      }
      if (!ok) break;
      passed = hz;
    }
  } finally {
    workers.forEach((w) => w.close());
  }
  await sleep(2000); // let the target settle before the next ramp
  return passed;
}

/** Starts the anchor loader process; returns its URL. */
async function startAnchor(
  databaseUrl: string,
  tokens: string[],
  log: (line: string) => void,
): Promise<{ url: string; pid: number }> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-fleet-")), "tokens.json");
  fs.writeFileSync(file, JSON.stringify(tokens));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/bench/fleet/anchor-loader.ts", databaseUrl, file],
    { cwd: projectDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  onCleanup("fleet anchor", async () => {
    child.kill("SIGTERM");
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
  child.stderr!.on("data", (d: Buffer) => log(`  [anchor] ${d.toString().trim()}`));
  const port = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /"listening":(\d+)/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`anchor loader exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid! };
}

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

interface TableWrites {
  ins: number;
  upd: number;
  hot: number;
  del: number;
}

/** Rows inserted, updated (and of those HOT) and deleted so far, per table of the database. */
async function tableWrites(pool: pg.Pool): Promise<Map<string, TableWrites>> {
  const res = await pool.query<{ t: string; ins: string; upd: string; hot: string; del: string }>(
    `SELECT relname AS t, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del FROM pg_stat_user_tables`,
  );
  return new Map(
    res.rows.map((r) => [
      r.t,
      { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot), del: Number(r.del) },
    ]),
  );
}

/** The tables written between two readings, most written first: `table ins/upd(hot)/del` per 1,000 points. */
function writesLine(
  before: Map<string, TableWrites>,
  after: Map<string, TableWrites>,
  points: number,
): string {
  const per = (n: number) => fmt((n * 1000) / Math.max(1, points), 0);
  const rows = [...after].map(([t, a]) => {
    const b = before.get(t) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    return { t, ins: a.ins - b.ins, upd: a.upd - b.upd, hot: a.hot - b.hot, del: a.del - b.del };
  });
  return rows
    .filter((r) => r.ins + r.upd + r.del > 0)
    .sort((x, y) => y.ins + y.upd + y.del - (x.ins + x.upd + x.del))
    .map((r) => `${r.t} ${per(r.ins)}/${per(r.upd)}(${per(r.hot)})/${per(r.del)}`)
    .join(", ");
}

/** The `fleet` scenario (see the module comment). */
export const scenario: Scenario = {
  name: "fleet",
  description:
    "a real fleet's small many-key frames (200 workers/60 s quick, 500/5 min full) with restarts and re-sends: ack p99 from the scheduled send, 0 lost/dup, RSS; then a ramp against a minimal durable loader",
  run: fleet,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
