/**
 * Where the fleet's per-frame cost goes (issue 22): the `fleet` traffic (traffic.ts) at a fixed
 * rate into the production server on a fresh embedded PostgreSQL with `pg_stat_statements`
 * loaded, the server's node process under `--cpu-prof`. Prints PostgreSQL's statements by total
 * time (per frame acked) and the server's busiest functions (self time), then stops.
 *
 * Run: `npx tsx scripts/bench/fleet/profile.ts [--workers 100] [--hz 1] [--duration 20]`.
 * Not a scenario (index.ts skips it): a tool for finding the next lever, figures vary with load.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { PrismaPg } from "@prisma/adapter-pg";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";

import {
  fmt,
  fmtInt,
  installExitHandlers,
  onCleanup,
  shutdown,
  sleep,
  startBenchEnvironment,
  treeCpuS,
} from "../support";
import { summariseTrace } from "./trace-summary";
import { FleetTally, FleetWorker, latencyByKindText } from "./traffic";

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "100" },
    hz: { type: "string", default: "1" },
    duration: { type: "string", default: "20" },
    restarts: { type: "string", default: "0" },
  },
});
const workersN = Number(values.workers);
const hz = Number(values.hz);
const durationS = Number(values.duration);
/** Workers restarted during the run (spread evenly), each re-sending its last 50 steps like the bench's. */
const restartsN = Number(values.restarts);
const log = (line: string) => console.log(line);

installExitHandlers(900);
const profDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-fleet-prof-"));
onCleanup("profile folder", async () => fs.rmSync(profDir, { recursive: true, force: true }));
// Inherited by every node process started below; cpu-prof.mjs profiles only the server's.
process.env.PITWALL_CPU_PROF_DIR = profDir;
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --import=${path.join(import.meta.dirname, "cpu-prof.mjs")}`;
// The server's ingest trace (lib/server/ingest-trace.ts), emptied when the measured phase starts.
const traceFile = path.join(os.tmpdir(), `pitwall-fleet-trace-${process.pid}.jsonl`);
process.env.PITWALL_INGEST_TRACE = traceFile;
const env = await startBenchEnvironment({ server: true, log });
await env.pool.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
await env.pool.query(`ALTER SYSTEM SET pg_stat_statements.track = 'all'`);
await env.restart();
const pg = await import("pg");
const pool = new pg.default.Pool({ connectionString: env.databaseUrl, max: 2 });
pool.on("error", () => undefined);
await pool.query(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`);
const prisma = new PrismaClient({
  adapter: new PrismaPg({ connectionString: env.databaseUrl, max: 2 }),
});
const tokens: string[] = [];
for (let i = 0; i < workersN; i++) tokens.push((await createToken(prisma, `prof-host-${i}`)).token);
await prisma.$disconnect();

const tally = new FleetTally();
const workers = tokens.map(
  (t, i) => new FleetWorker(env.server!.url, t, i, `prof-${Date.now()}-${i}`, tally),
);
for (let i = 0; i < workers.length; i += 20)
  await Promise.all(workers.slice(i, i + 20).map((w) => w.open()));
await sleep(1000);
await pool.query(`SELECT pg_stat_statements_reset()`);
const pgPid = env.postgresPid;
const serverPid = env.server!.serverPid!;
process.kill(serverPid, "SIGUSR2"); // cpu-prof.mjs: start profiling now
const cpu0 = { server: treeCpuS(serverPid)!, pg: treeCpuS(pgPid)! };
fs.writeFileSync(traceFile, "");
const t0 = performance.now() + 20;
const end = t0 + durationS * 1000;
workers.forEach((w, i) => w.schedule(t0, hz, i / workers.length));
const restarting: Promise<void>[] = [];
let nextRestart = 0;
while (performance.now() < end) {
  const now = performance.now();
  for (const w of workers) w.pump(now, end);
  if (nextRestart < restartsN && now >= t0 + ((nextRestart + 0.5) / restartsN) * durationS * 1000)
    restarting.push(workers[(nextRestart++ * 7919) % workers.length]!.restart());
  await sleep(2);
}
await Promise.all(restarting);
const drainStart = performance.now();
while (workers.some((w) => w.pending > 0) && performance.now() - drainStart < 20_000)
  await sleep(50);
const cpu1 = { server: treeCpuS(serverPid)!, pg: treeCpuS(pgPid)! };
const frames = tally.framesAcked;
const lat = Float64Array.from(tally.latencies).sort();
log(
  `${workersN} workers x ${hz} steps/s for ${durationS} s, ${restartsN} restarts (load ${os
    .loadavg()
    .map((x) => fmt(x, 1))
    .join(
      " ",
    )}): frames acked ${fmtInt(frames)}, points ${fmtInt(tally.pointsAcked)}; ack p50 ${fmt(lat[Math.floor(lat.length / 2)] ?? NaN, 1)} p99 ${fmt(lat[Math.floor(lat.length * 0.99)] ?? NaN, 1)} max ${fmt(lat[lat.length - 1] ?? NaN, 1)} ms`,
);
log(`  ${latencyByKindText(tally)}`);
log(
  `CPU per frame: server ${fmt(((cpu1.server - cpu0.server) * 1e6) / frames, 0)} us, PostgreSQL ${fmt(((cpu1.pg - cpu0.pg) * 1e6) / frames, 0)} us`,
);
const stats = await pool.query<{ q: string; calls: string; ms: string; rows: string }>(
  `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q, calls, total_exec_time + total_plan_time AS ms, rows
     FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY 3 DESC LIMIT 25`,
);
const groups = Number(
  stats.rows.find((r) => /^COMMIT/i.test(r.q))?.calls ?? stats.rows[0]?.calls ?? 1,
);
log(
  `PostgreSQL statements (exec + plan time; ${fmtInt(groups)} COMMITs = ${fmt(frames / groups, 1)} frames per transaction):`,
);
for (const r of stats.rows)
  log(
    `  ${fmt((Number(r.ms) * 1000) / frames, 1).padStart(7)} us/frame ${fmtInt(Number(r.calls)).padStart(7)} calls ${fmt(Number(r.calls) / groups, 2).padStart(5)}/txn  ${r.q}`,
  );
workers.forEach((w) => w.close());
await pool.end();
await sleep(1200); // the trace is written once a second
summariseTrace(traceFile, log);
log(`(trace kept in ${traceFile}: npx tsx scripts/bench/fleet/trace-summary.ts ${traceFile})`);
await env.server!.stop();
const file = fs.readdirSync(profDir).find((f) => f === `CPU.${serverPid}.cpuprofile`);
if (file) summariseProfile(path.join(profDir, file));
else log(`no CPU profile of pid ${serverPid} in ${profDir}: ${fs.readdirSync(profDir).join(", ")}`);
await shutdown(0);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Prints the 30 functions with the most self time, and time by source area. */
function summariseProfile(file: string): void {
  const prof = JSON.parse(fs.readFileSync(file, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  const byFn = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const name = n.callFrame.functionName || "(anonymous)";
    if (name === "(idle)") {
      idle += us;
      continue;
    }
    total += us;
    const url = n.callFrame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
    const key = `${name} ${url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
    const area = url.startsWith("node_modules/")
      ? url
          .split("/")
          .slice(0, url.includes("@") ? 3 : 2)
          .join("/")
      : url.startsWith("node:") || url === ""
        ? name.startsWith("(")
          ? name
          : "node internals"
        : url.split("/").slice(0, 3).join("/");
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  log(`server CPU profile: busy ${fmt(total / 1e6, 2)} s, idle ${fmt(idle / 1e6, 2)} s`);
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .forEach(([k, us]) => log(`  ${fmt((us * 100) / total, 1).padStart(5)} %  ${k}`));
  log(`by area:`);
  top(byArea, 20);
  log(`by function (self):`);
  top(byFn, 30);
  // Each sample charged to the nearest project function on its stack (lib/, server.ts, scripts/):
  // what of ours causes the time spent in node internals and libraries.
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ours = new Map<string, number>();
  for (const [id, us] of self) {
    let n: ProfileNode | undefined = byId.get(id);
    if (n?.callFrame.functionName === "(idle)") continue;
    let key = "(no project frame)";
    while (n) {
      const url = n.callFrame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
      if (/^(lib|scripts|server\.ts)/.test(url)) {
        key = `${n.callFrame.functionName || "(anonymous)"} ${url}`;
        break;
      }
      const up = parent.get(n.id);
      n = up === undefined ? undefined : byId.get(up);
    }
    ours.set(key, (ours.get(key) ?? 0) + us);
  }
  log(`by nearest project function (inclusive of the libraries and internals it calls):`);
  top(ours, 30);
}
