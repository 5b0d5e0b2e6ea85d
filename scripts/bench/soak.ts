/**
 * Bench scenario `soak` (`npm run bench soak [--full]`, or alone `npx tsx scripts/bench/soak.ts`):
 * many workers pushing at a steady rate for minutes, each on its own `/ws/ingest` socket with its
 * own host token, against a fresh embedded PostgreSQL and the production server (support.ts).
 *
 * Load: `--workers` (200) sockets, each sending `--rate` (10) frames/s for `--duration` seconds
 * (quick 60, `--full` 300), one frame at a time, never waiting for acks (a worker's SDK keeps
 * sending while earlier frames are in flight). Each worker first starts its own training run.
 * The mix of every 10 frames: 1 heartbeat with a few host facts, 4 `run.progress` (done + two
 * counters), 4 `run.metrics` of 3 points (loss, lr, grad_norm at one step), 1 `run.event`.
 * Sends are spread evenly over each second (worker i is offset by i/N of a frame period).
 *
 * Printed: frames sent / acked / rejected; ack latency (ws.send → the ack listing the id)
 * p50/p95/p99/max with the target "p99 < 250 ms" beside it; acks per 5 s window as frames/s
 * (a dip shows as a low window); server RSS at the start and the end; CPU seconds of the server,
 * PostgreSQL and this load generator, and the generator's own event-loop delay p99 (when that is
 * high, the latency figures include the generator's lateness). Frames are built by string
 * concatenation and ids are per-worker counters, so the generator allocates little. Everything
 * shares this machine's cores; figures are printed, never asserted.
 *
 * Flags: --workers 200 --rate 10 (frames/s per worker) --duration 60 (s; 300 with --full)
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import WebSocket from "ws";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";

import {
  fmt,
  fmtInt,
  isMain,
  memoryKb,
  mib,
  onCleanup,
  percentile,
  runStandalone,
  sleep,
  startBenchEnvironment,
  treeCpuS,
  type Scenario,
  type ScenarioOptions,
} from "./support";

/** The goal of issue #9 item 6, printed beside the measured p99. */
const TARGET_P99_MS = 250;
/** Width of the achieved-rate windows. */
const WINDOW_S = 5;
/** How long to wait for the last acks after the sending stops. */
const DRAIN_TIMEOUT_MS = 60_000;

interface SoakOptions {
  workers: number;
  rate: number;
  durationS: number;
}

function parseOptions(full: boolean): SoakOptions {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      workers: { type: "string" },
      rate: { type: "string" },
      duration: { type: "string" },
    },
    strict: false,
    allowPositionals: true,
  });
  const num = (v: unknown, dflt: number) =>
    typeof v === "string" && Number(v) > 0 ? Number(v) : dflt;
  return {
    workers: num(values.workers, 200),
    rate: num(values.rate, 10),
    durationS: num(values.duration, full ? 300 : 60),
  };
}

/** What every worker shares: per-frame send times, latencies and per-window counts. */
class Tally {
  readonly latencyMs: Float64Array;
  latencies = 0;
  sent = 0;
  acked = 0;
  rejected = 0;
  readonly rejectCodes = new Map<string, number>();
  readonly ackedPerWindow: number[] = [];
  constructor(
    capacity: number,
    private readonly t0: () => number,
  ) {
    this.latencyMs = new Float64Array(capacity);
  }
  ack(latency: number, at: number): void {
    this.acked++;
    if (this.latencies < this.latencyMs.length) this.latencyMs[this.latencies++] = latency;
    const w = Math.floor((at - this.t0()) / (WINDOW_S * 1000));
    if (w >= 0) this.ackedPerWindow[w] = (this.ackedPerWindow[w] ?? 0) + 1;
  }
}

/** One worker: its socket, its run and the send time of each frame id (ids are 1, 2, 3 …). */
class SoakWorker {
  private readonly ws: WebSocket;
  private readonly sentAt: Float64Array;
  private seq = 0;
  private readonly run: string;
  private startAcked: (() => void) | null = null;
  constructor(
    url: string,
    token: string,
    private readonly index: number,
    capacity: number,
    private readonly tally: Tally,
  ) {
    this.run = `soak-${index}`;
    this.sentAt = new Float64Array(capacity + 2);
    this.ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws/ingest`, {
      headers: { authorization: `Bearer ${token}` },
      perMessageDeflate: false,
    });
    this.ws.on("message", (data) => this.onMessage(data.toString()));
    this.ws.on("error", () => undefined);
  }

  async open(): Promise<void> {
    if (this.ws.readyState !== WebSocket.OPEN)
      await new Promise<void>((resolve, reject) =>
        this.ws.once("open", resolve).once("error", reject),
      );
    const acked = new Promise<void>((resolve) => (this.startAcked = resolve));
    this.write(
      `"type":"run.start","run":"${this.run}","name":"soak worker ${this.index}","kind":"training","total":1000000,"unit":"steps"`,
    );
    await acked;
  }

  /** Sends the next frame of the mix (see the module comment). */
  next(): void {
    const n = this.seq; // frames sent so far, run.start included
    const slot = n % 10;
    const step = n;
    if (slot === 0) {
      this.write(
        `"type":"heartbeat","intervalS":10,"facts":{"cpuPct":${(n * 7) % 100},"loadAvg1":1.5,"ramUsedBytes":${8_000_000_000 + n}}`,
      );
    } else if (slot === 9) {
      this.write(
        `"type":"run.event","run":"${this.run}","level":"info","message":"checkpoint step ${step} written"`,
      );
    } else if (slot % 2 === 1) {
      this.write(
        `"type":"run.progress","run":"${this.run}","bootId":"boot-${this.index}","done":${step},"counters":{"s3.uploaded":${step},"s3.inflight":${n % 4}}`,
      );
    } else {
      this.write(
        `"type":"run.metrics","run":"${this.run}","points":[{"key":"loss","step":${step},"value":${(2 / (1 + step / 1000)).toFixed(4)}},{"key":"lr","step":${step},"value":0.0003},{"key":"grad_norm","step":${step},"value":${(1 + (n % 13) / 10).toFixed(2)}}]`,
      );
    }
  }

  close(): void {
    this.ws.close();
  }

  private write(body: string): void {
    const id = ++this.seq;
    this.sentAt[id] = performance.now();
    if (id > 1) this.tally.sent++;
    this.ws.send(`{"v":1,"id":"${id}",${body}}`);
  }

  private onMessage(text: string): void {
    const at = performance.now();
    const msg = JSON.parse(text) as {
      type: string;
      ids?: string[];
      id?: string | null;
      code?: string;
    };
    if (msg.type === "ack") {
      for (const id of msg.ids ?? []) {
        const n = Number(id);
        if (n === 1) this.startAcked?.();
        else if (this.sentAt[n]! > 0) {
          this.tally.ack(at - this.sentAt[n]!, at);
          this.sentAt[n] = 0; // an id acked twice (a resend) counts once
        }
      }
    } else if (msg.type === "error") {
      this.tally.rejected++;
      const code = msg.code ?? "?";
      this.tally.rejectCodes.set(code, (this.tally.rejectCodes.get(code) ?? 0) + 1);
    }
  }
}

async function soak(opts: ScenarioOptions): Promise<void> {
  const o = parseOptions(opts.full);
  const env = await startBenchEnvironment({ server: true, log: opts.log });
  const server = env.server!;
  opts.log(
    `soak: ${o.workers} workers × ${o.rate} frames/s for ${o.durationS} s, each on its own socket and host token (mix per 10 frames: 1 heartbeat, 4 run.progress, 4 run.metrics × 3 points, 1 run.event)`,
  );

  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: env.databaseUrl, max: 2 }),
  });
  const tokens: string[] = [];
  try {
    for (let i = 0; i < o.workers; i++)
      tokens.push((await createToken(prisma, `soak-host-${String(i).padStart(3, "0")}`)).token);
  } finally {
    await prisma.$disconnect();
  }

  const perWorker = Math.ceil(o.durationS * o.rate) + 1;
  let t0 = 0;
  const tally = new Tally(perWorker * o.workers, () => t0);
  const workers = tokens.map((token, i) => new SoakWorker(server.url, token, i, perWorker, tally));
  onCleanup("soak sockets", async () => workers.forEach((w) => w.close()));
  for (let i = 0; i < workers.length; i += 20)
    await Promise.all(workers.slice(i, i + 20).map((w) => w.open()));
  await sleep(1000);

  const rss0 = server.serverPid ? memoryKb(server.serverPid) : null;
  const serverCpu0 = server.serverPid ? (treeCpuS(server.serverPid) ?? NaN) : NaN;
  const pgCpu0 = treeCpuS(env.postgresPid) ?? NaN;
  const genCpu0 = process.cpuUsage();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();

  // One timer for all workers: every tick, each worker sends the frames that are due by now.
  t0 = performance.now();
  const periodMs = 1000 / o.rate;
  const due = new Int32Array(o.workers);
  const endAt = t0 + o.durationS * 1000;
  const sampler = sampleActivity(env.pool);
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = Math.min(performance.now(), endAt);
      for (let i = 0; i < o.workers; i++) {
        const should = Math.min(perWorker - 1, Math.floor((now - t0) / periodMs + i / o.workers));
        while (due[i]! < should) {
          due[i]!++;
          workers[i]!.next();
        }
      }
      if (now >= endAt) resolve();
      else setTimeout(tick, 5);
    };
    tick();
  });
  const sendEnd = performance.now();
  const activity = await sampler.stop();
  const drainStart = performance.now();
  while (
    tally.acked + tally.rejected < tally.sent &&
    performance.now() - drainStart < DRAIN_TIMEOUT_MS
  )
    await sleep(100);
  const elapsedS = (performance.now() - t0) / 1000;
  loopDelay.disable();
  const genCpu = process.cpuUsage(genCpu0);
  const serverCpu = server.serverPid ? (treeCpuS(server.serverPid) ?? NaN) - serverCpu0 : NaN;
  const pgCpu = (treeCpuS(env.postgresPid) ?? NaN) - pgCpu0;
  const rss1 = server.serverPid ? memoryKb(server.serverPid) : null;
  workers.forEach((w) => w.close());

  printActivity(opts.log, activity);
  const lat = tally.latencyMs.subarray(0, tally.latencies).sort();
  const rejects = [...tally.rejectCodes].map(([c, n]) => `${c} × ${n}`).join(", ");
  opts.log(
    `frames sent ${fmtInt(tally.sent)} | acked ${fmtInt(tally.acked)} | rejected ${fmtInt(tally.rejected)}${rejects ? ` (${rejects})` : ""} | unanswered ${fmtInt(tally.sent - tally.acked - tally.rejected)}`,
  );
  opts.log(
    `ack latency ms: p50 ${fmt(percentile(lat, 0.5), 1)} | p95 ${fmt(percentile(lat, 0.95), 1)} | p99 ${fmt(percentile(lat, 0.99), 1)} (target p99 < ${TARGET_P99_MS} ms: ${percentile(lat, 0.99) < TARGET_P99_MS ? "met" : "NOT met"}) | max ${fmt(lat[lat.length - 1] ?? NaN, 1)}`,
  );
  const offered = o.workers * o.rate;
  const windows = tally.ackedPerWindow.slice(0, Math.ceil((sendEnd - t0) / (WINDOW_S * 1000)));
  const rates = Array.from(windows, (n) => (n ?? 0) / WINDOW_S);
  opts.log(
    `acked frames/s per ${WINDOW_S} s window (offered ${fmtInt(offered)}/s; min ${fmtInt(Math.min(...rates))}, max ${fmtInt(Math.max(...rates))}):`,
  );
  for (let i = 0; i < rates.length; i += 12)
    opts.log(
      `  ${String(i * WINDOW_S).padStart(4)} s: ${rates
        .slice(i, i + 12)
        .map((r) => fmtInt(r).padStart(5))
        .join(" ")}`,
    );
  opts.log(
    `server RSS: start ${mib(rss0?.rssKb)} → end ${mib(rss1?.rssKb)} (peak ${mib(rss1?.hwmKb)})`,
  );
  const perFrame = (cpuS: number) => fmt((cpuS * 1000) / Math.max(1, tally.acked), 3);
  opts.log(
    `CPU ms per acked frame: server ${perFrame(serverCpu)} | PostgreSQL ${perFrame(pgCpu)} (steadier than the latencies when the machine is busy)`,
  );
  opts.log(
    `CPU s over ${fmt(elapsedS, 0)} s: server ${fmt(serverCpu, 1)} | PostgreSQL ${fmt(pgCpu, 1)} | this load generator ${fmt((genCpu.user + genCpu.system) / 1e6, 1)} (event-loop delay p99 ${fmt(loopDelay.percentile(99) / 1e6, 1)} ms, max ${fmt(loopDelay.max / 1e6, 1)} ms); all on the same cores as the server, and the machine is shared`,
  );
}

/** What PostgreSQL's client backends were doing, sampled from pg_stat_activity every 250 ms. */
function sampleActivity(pool: pg.Pool): {
  stop(): Promise<{
    samples: number;
    commitsPerS: number;
    states: Map<string, number>;
    statements: Map<string, number>;
  }>;
} {
  const states = new Map<string, number>();
  const statements = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const commits = async () =>
    Number(
      (
        await pool.query<{ n: string }>(
          `SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`,
        )
      ).rows[0]?.n ?? NaN,
    );
  let samples = 0;
  let running = true;
  const t0 = performance.now();
  const loop = (async () => {
    const c0 = await commits();
    while (running) {
      const res = await pool.query<{ state: string | null; wait: string | null; query: string }>(
        `SELECT state, wait_event_type || ':' || wait_event AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 80) AS query
         FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname = current_database()`,
      );
      samples++;
      for (const r of res.rows) {
        bump(states, `${r.state ?? "?"}${r.wait ? ` (${r.wait})` : ""}`);
        if (r.state === "active") bump(statements, r.query);
      }
      await sleep(250);
    }
    return c0;
  })();
  return {
    async stop() {
      running = false;
      const c0 = await loop;
      return {
        samples,
        commitsPerS: ((await commits()) - c0) / ((performance.now() - t0) / 1000),
        states,
        statements,
      };
    },
  };
}

function printActivity(
  log: (line: string) => void,
  a: Awaited<ReturnType<ReturnType<typeof sampleActivity>["stop"]>>,
): void {
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((x, y) => y[1] - x[1])
      .slice(0, n)
      .map(([k, v]) => `${fmt(v / Math.max(1, a.samples), 2)} ${k}`);
  log(
    `PostgreSQL: ${fmtInt(a.commitsPerS)} commits/s; client backends by state (mean count over ${a.samples} samples of pg_stat_activity):`,
  );
  for (const line of top(a.states, 6)) log(`  ${line}`);
  log(`  busiest statements (mean active count):`);
  for (const line of top(a.statements, 6)) log(`    ${line}`);
}

/** The `soak` scenario (see the module comment). */
export const scenario: Scenario = {
  name: "soak",
  description:
    "200 workers × 10 frames/s on their own sockets and tokens for 60 s (--full 5 min): ack latency p50/p95/p99 (target p99 < 250 ms), rate per 5 s, RSS",
  run: soak,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
