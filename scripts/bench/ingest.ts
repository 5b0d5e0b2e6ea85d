/**
 * Bench scenario `ingest` (`npm run bench ingest`, or alone `npx tsx scripts/bench/ingest.ts`):
 * end-to-end throughput and latency of the WebSocket ingest path, on this machine, against a
 * throw-away database (shared plumbing in ./support.ts).
 *
 * What it does
 *   1. Starts a fresh embedded PostgreSQL in a temp folder, applies the migrations, builds the
 *      dashboard if the production build is stale (`.next`, or PITWALL_NEXT_DIST_DIR when set,
 *      e.g. to keep clear of someone else's build in a shared checkout), and starts the real
 *      server (`scripts/start.ts`, production mode) as a child process on a free port, exactly
 *      like the integration tests.
 *   2. Opens `--workers` sockets on `/ws/ingest` with one worker token. Each worker sends its own
 *      `run.start`, waits for its ack, and then — all workers released at the same instant —
 *      sends `--frames` `run.benchmark` frames of `--points` points each (distinct keys, values
 *      shaped like an SGLang bench_serving sweep, incl. a ~1 KB `raw` row per point), never more
 *      than `--window` frames unacknowledged per socket.
 *   3. Loads the same number of point rows straight into PostgreSQL for comparison (see below).
 *   4. Counts the rows in "BenchmarkPoint" (and "IngestedFrame"), compares every stored value with
 *      the direct load of step 3, and prints PASS when every point was stored exactly once and
 *      unaltered; exits 1 on FAIL. Nothing is timed against a threshold: the figures are
 *      printed, never asserted.
 *
 * How to read the numbers
 *   - frames/s and points/s "committed" count only acked frames (an ack is sent after COMMIT),
 *     over the wall time from releasing the workers to the last ack. This is the rate a fleet of
 *     workers can push through one server instance with this database.
 *   - ack latency is per frame, from `ws.send` to receiving the ack that lists its id. With a
 *     full window it is mostly queueing (Little's law: latency ≈ frames in flight / frames/s),
 *     so p50 tracks `workers × window / frames/s`; a small window (`--window 1`) measures the
 *     round trip of a lone frame instead.
 *   - "frames per ack" is the mean number of frames the server committed per transaction (each
 *     ack lists one batch's ids); larger means the server is batching under load, as designed.
 *   - CPU seconds (server process, PostgreSQL incl. its backends, this benchmark client) and
 *     "machine busy" show where the cores went during the ingest phase. Everything — clients,
 *     server, PostgreSQL — shares this machine's cores, so the client's own CPU is part of the
 *     picture: on a 2-core box the figures are a lower bound for a server on its own host.
 *     "anything else" is machine busy time minus those three: other programs (a dev server, a
 *     test run, a build) and kernel work. When it is more than a few seconds the run was
 *     disturbed; compare runs only when it is small.
 *   - server RSS comes from /proc/<pid>/status of the server's node process (VmRSS at idle and
 *     after the run, VmHWM = peak since start).
 *   - the comparison is the rate PostgreSQL itself absorbs the same rows at, without Pitwall:
 *     `INSERT … SELECT FROM unnest(…)` (the statement the ingest path uses, minus ON CONFLICT),
 *     into a scratch table with the same columns, defaults and primary key as "BenchmarkPoint",
 *     in statements of `--baseline-chunk` rows (default 20,000) inside one transaction. It is not
 *     a COPY (`pg-copy-streams` is not installed). `--baseline-chunk 0` sends all rows in ONE
 *     statement; that is slower, not faster (at the defaults the `raw` column alone becomes a
 *     ~300 MB array literal, and V8 strings end at 512 MiB), so it is not the default.
 *     Client-side array encoding is timed separately and excluded from its rows/s.
 *   - first-run effects (JIT warm-up, empty tables) are included; run it twice to see the spread.
 *
 * Flags: --workers 8 --frames 2000 (per worker) --points 20 (per frame) --window 64
 *        --seed 1 (--frames defaults to 5000 with --full; the suite runner sets the hard timeout)
 *        --baseline-chunk 20000 (rows per statement of the comparison; 0 = one statement)
 * All traffic goes to 127.0.0.1. The server gets SIGTERM, PostgreSQL is stopped and the temp
 * folder removed on success, on error, on timeout and on Ctrl-C; a detached janitor process does
 * the same if this process is killed outright (see startJanitor).
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type pg from "pg";
import WebSocket from "ws";
import type { BenchmarkPointInput, ClientFrameInput } from "@/lib/protocol";
import { seededRng } from "../demo/rng";
import { CLK_TCK, fmt, fmtInt, isMain, machineTicks, memoryKb, mib, onCleanup, percentile, printTable, runStandalone, startBenchEnvironment, treeCpuS, type Scenario } from "./support";


// ---------------------------------------------------------------------------------------------
// Options

interface Options {
  workers: number;
  frames: number;
  points: number;
  window: number;
  timeoutS: number;
  seed: number;
  baselineChunk: number;
}

function parseOptions(full: boolean): Options {
  const { values } = parseArgs({
    options: {
      workers: { type: "string", default: "8" },
      frames: { type: "string", default: full ? "5000" : "2000" },
      points: { type: "string", default: "20" },
      window: { type: "string", default: "64" },
      timeout: { type: "string", default: "300" },
      seed: { type: "string", default: "1" },
      "baseline-chunk": { type: "string", default: "20000" },
      help: { type: "boolean", short: "h", default: false },
      full: { type: "boolean", default: false },
      quick: { type: "boolean", default: false },
    },
    // Scenario names and other scenarios' flags pass through when run from the suite.
    strict: false,
    allowPositionals: true,
  });
  if (values.help) {
    console.log("usage: npm run bench -- [--workers 8] [--frames 2000] [--points 20] [--window 64] [--timeout 300] [--seed 1] [--baseline-chunk 20000]");
    process.exit(0);
  }
  const int = (name: string, raw: string | boolean | undefined, min: number, max: number): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer in ${min}..${max} (got '${raw}')`);
    return n;
  };
  return {
    workers: int("workers", values.workers, 1, 64),
    frames: int("frames", values.frames, 1, 1_000_000),
    // The protocol allows 5000 points per frame; beyond ~500 a frame nears the 1 MiB limit here.
    points: int("points", values.points, 1, 500),
    window: int("window", values.window, 1, 10_000),
    timeoutS: int("timeout", values.timeout, 10, 3600),
    seed: int("seed", values.seed, 0, 2 ** 31 - 1),
    baselineChunk: int("baseline-chunk", values["baseline-chunk"], 0, 1_000_000),
  };
}

// ---------------------------------------------------------------------------------------------
// Realistic benchmark points (an SGLang bench_serving sweep), deterministic per seed

const CONCURRENCIES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const SHAPES = [
  [1000, 1000],
  [1000, 256],
  [4000, 512],
  [16000, 1000],
  [32000, 256],
] as const;
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Point `index` of frame `frame` of worker `worker`: a key unique within the worker's run. */
function makePoint(seed: number, worker: number, frame: number, index: number, pointsPerFrame: number): BenchmarkPointInput {
  const rnd = seededRng(seed * 1_000_003 + worker * 7_919_993 + frame * 104_729 + index * 131);
  const concurrency = CONCURRENCIES[index % CONCURRENCIES.length]!;
  const [inputLen, outputLen] = SHAPES[(frame + Math.floor(index / CONCURRENCIES.length)) % SHAPES.length]!;
  const completed = concurrency * 10;
  const failed = rnd() < 0.05 ? 1 + Math.floor(rnd() * 3) : 0;
  const ttftMedian = (40 + inputLen / 100) * (1 + Math.log2(concurrency) * 0.3) * (0.9 + rnd() * 0.2);
  const tpotMedian = (18 + concurrency * 0.12) * (0.9 + rnd() * 0.2);
  const itlMedian = tpotMedian * (0.95 + rnd() * 0.1);
  const e2eMedian = ttftMedian + tpotMedian * outputLen;
  const durationS = (completed / concurrency) * (e2eMedian / 1000) * (1 + rnd() * 0.1);
  const outputTokPerS = (completed * outputLen) / durationS;
  const totalTokPerS = (completed * (inputLen + outputLen)) / durationS;
  const speculative = frame % 4 === 0;
  const p = {
    ttftMsMean: round(ttftMedian * 1.08),
    ttftMsMedian: round(ttftMedian),
    ttftMsP99: round(ttftMedian * (2.5 + rnd())),
    tpotMsMean: round(tpotMedian * 1.03),
    tpotMsMedian: round(tpotMedian),
    tpotMsP99: round(tpotMedian * (1.6 + rnd() * 0.4)),
    itlMsMean: round(itlMedian * 1.1),
    itlMsMedian: round(itlMedian),
    itlMsP99: round(itlMedian * (3 + rnd())),
    e2eMsMean: round(e2eMedian * 1.05),
    e2eMsMedian: round(e2eMedian),
    e2eMsP99: round(e2eMedian * (1.3 + rnd() * 0.3)),
  };
  const measuredConcurrency = round(concurrency * (0.85 + rnd() * 0.14));
  const requestThroughput = round(completed / durationS, 4);
  const acceptLength = speculative ? round(2.2 + rnd() * 1.6) : null;
  return {
    key: `sweep-${frame}/in${inputLen}-out${outputLen}/c${concurrency}#${index}`,
    ord: frame * pointsPerFrame + index,
    scenario: inputLen >= 16000 ? "long-context" : "throughput",
    dataset: "random",
    concurrency,
    measuredConcurrency,
    requestRate: null,
    requestRateUnbounded: true,
    inputLen,
    outputLen,
    completed,
    failed,
    durationS: round(durationS),
    requestThroughput,
    outputTokPerS: round(outputTokPerS),
    totalTokPerS: round(totalTokPerS),
    ...p,
    acceptLength,
    raw: {
      backend: "sglang",
      dataset_name: "random",
      request_rate: "inf",
      max_concurrency: concurrency,
      random_input_len: inputLen,
      random_output_len: outputLen,
      random_range_ratio: 1.0,
      duration: round(durationS),
      completed,
      total_input_tokens: completed * inputLen,
      total_output_tokens: completed * outputLen,
      total_output_tokens_retokenized: completed * outputLen - Math.floor(rnd() * 50),
      request_throughput: requestThroughput,
      input_throughput: round((completed * inputLen) / durationS),
      output_throughput: round(outputTokPerS),
      total_throughput: round(totalTokPerS),
      concurrency: measuredConcurrency,
      mean_ttft_ms: p.ttftMsMean,
      median_ttft_ms: p.ttftMsMedian,
      std_ttft_ms: round(ttftMedian * 0.4),
      p99_ttft_ms: p.ttftMsP99,
      mean_tpot_ms: p.tpotMsMean,
      median_tpot_ms: p.tpotMsMedian,
      std_tpot_ms: round(tpotMedian * 0.1),
      p99_tpot_ms: p.tpotMsP99,
      mean_itl_ms: p.itlMsMean,
      median_itl_ms: p.itlMsMedian,
      std_itl_ms: round(itlMedian * 0.5),
      p95_itl_ms: round(itlMedian * 2),
      p99_itl_ms: p.itlMsP99,
      mean_e2e_latency_ms: p.e2eMsMean,
      median_e2e_latency_ms: p.e2eMsMedian,
      std_e2e_latency_ms: round(e2eMedian * 0.2),
      p99_e2e_latency_ms: p.e2eMsP99,
      accept_length: acceptLength,
      tag: `bench-w${worker}`,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Workers

interface WorkerResult {
  runKey: string;
  framesAcked: number;
  pointsAcked: number;
  completedSum: number;
  acks: number;
  duplicateAcks: number;
  errors: string[];
  lastAckAt: number;
}

interface Worker {
  runKey: string;
  /** Sends the benchmark frames; resolves when all are acked (or answered with an error). */
  go(): Promise<WorkerResult>;
  close(): void;
}

/** Connects worker `w`, starts its run and waits for the run.start ack. */
async function openWorker(opts: Options, w: number, wsUrl: string, token: string, stamp: string, latencies: Float64Array): Promise<Worker> {
  const runKey = `bench-${stamp}-w${w}`;
  const ws = new WebSocket(`${wsUrl}/ws/ingest`, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`worker ${w}: upgrade refused with HTTP ${res.statusCode}`)));
  });

  const result: WorkerResult = { runKey, framesAcked: 0, pointsAcked: 0, completedSum: 0, acks: 0, duplicateAcks: 0, errors: [], lastAckAt: 0 };
  const pending = new Map<string, { sentAt: number; frame: number; completed: number }>();
  let onAck: ((ids: string[]) => void) | null = null;
  let onError: ((id: string | null, msg: string) => void) | null = null;
  let onClosed: ((code: number, reason: string) => void) | null = null;
  ws.on("message", (data) => {
    const at = performance.now();
    const msg = JSON.parse(data.toString()) as { type: string; ids?: string[]; id?: string | null; code?: string; message?: string };
    if (msg.type === "ack") {
      result.acks++;
      result.lastAckAt = at;
      onAck?.(msg.ids ?? []);
    } else if (msg.type === "error") {
      onError?.(msg.id ?? null, `${msg.code}: ${msg.message}`);
    }
  });
  ws.on("close", (code, reason) => onClosed?.(code, reason.toString()));
  ws.on("error", (err) => onClosed?.(1006, err.message));

  const send = (frame: ClientFrameInput) => ws.send(JSON.stringify(frame));

  // run.start, acked before the clock starts
  const startId = `${runKey}:start`;
  await new Promise<void>((resolve, reject) => {
    onAck = (ids) => {
      if (ids.includes(startId)) resolve();
    };
    onError = (_id, m) => reject(new Error(`worker ${w}: run.start rejected: ${m}`));
    onClosed = (code, reason) => reject(new Error(`worker ${w}: socket closed (${code} ${reason}) before run.start was acked`));
    send({
      v: 1,
      id: startId,
      type: "run.start",
      run: runKey,
      name: `Ingest benchmark, worker ${w}`,
      kind: "benchmark",
      config: { model: "Qwen/Qwen3-32B", engine: "sglang", engineVersion: "0.5.11", tp: 2, dataset: "random", benchmark: "scripts/bench/ingest.ts" },
      tags: ["bench-ingest"],
    });
  });

  const go = () =>
    new Promise<WorkerResult>((resolve, reject) => {
      let next = 0;
      let settled = 0;
      const finishIfDone = () => {
        if (settled === opts.frames) resolve(result);
      };
      const pump = () => {
        while (pending.size < opts.window && next < opts.frames) {
          const f = next++;
          const points: BenchmarkPointInput[] = [];
          let completed = 0;
          for (let i = 0; i < opts.points; i++) {
            const p = makePoint(opts.seed, w, f, i, opts.points);
            completed += p.completed ?? 0;
            points.push(p);
          }
          const id = `${runKey}:f${f}`;
          const text = JSON.stringify({ v: 1, id, type: "run.benchmark", run: runKey, points } satisfies ClientFrameInput);
          pending.set(id, { sentAt: performance.now(), frame: f, completed });
          ws.send(text);
        }
      };
      onAck = (ids) => {
        const at = performance.now();
        for (const id of ids) {
          const p = pending.get(id);
          if (!p) {
            if (id !== startId) result.duplicateAcks++;
            continue;
          }
          pending.delete(id);
          latencies[w * opts.frames + p.frame] = at - p.sentAt;
          result.framesAcked++;
          result.pointsAcked += opts.points;
          result.completedSum += p.completed;
          settled++;
        }
        pump();
        finishIfDone();
      };
      onError = (id, m) => {
        result.errors.push(`${id ?? "(no id)"}: ${m}`);
        if (id && pending.delete(id)) settled++;
        pump();
        finishIfDone();
      };
      onClosed = (code, reason) => reject(new Error(`worker ${w}: socket closed (${code} ${reason}) with ${opts.frames - settled} frames unsettled`));
      pump();
    });

  return { runKey, go, close: () => ws.terminate() };
}

// ---------------------------------------------------------------------------------------------
// Baseline: the same rows straight into PostgreSQL

/** Columns of "BenchmarkPoint" after runId and updatedAt, with their array types. */
const POINT_COLUMNS: ReadonlyArray<readonly [name: keyof BenchmarkPointInput, pgType: string]> = [
  ["key", "text"],
  ["ord", "int4"],
  ["scenario", "text"],
  ["dataset", "text"],
  ["concurrency", "int4"],
  ["measuredConcurrency", "float8"],
  ["requestRate", "float8"],
  ["requestRateUnbounded", "bool"],
  ["inputLen", "int4"],
  ["outputLen", "int4"],
  ["completed", "int4"],
  ["failed", "int4"],
  ["durationS", "float8"],
  ["requestThroughput", "float8"],
  ["outputTokPerS", "float8"],
  ["totalTokPerS", "float8"],
  ["ttftMsMean", "float8"],
  ["ttftMsMedian", "float8"],
  ["ttftMsP99", "float8"],
  ["tpotMsMean", "float8"],
  ["tpotMsMedian", "float8"],
  ["tpotMsP99", "float8"],
  ["itlMsMean", "float8"],
  ["itlMsMedian", "float8"],
  ["itlMsP99", "float8"],
  ["e2eMsMean", "float8"],
  ["e2eMsMedian", "float8"],
  ["e2eMsP99", "float8"],
  ["acceptLength", "float8"],
  ["raw", "jsonb"],
];

/** One Postgres array literal element. */
function arrayElement(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : `"${String(v)}"`;
  if (typeof v === "boolean") return v ? "t" : "f";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  // A JSON string literal is a valid quoted array element (backslash escapes the next char) as
  // long as JSON.stringify emits no \n, \t or \uXXXX escapes, i.e. no control characters and no
  // lone surrogates; it is native and ~4x faster than the regex replacements.
  if (!/[\u0000-\u001f\ud800-\udfff]/.test(s)) return JSON.stringify(s);
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

interface BaselineResult {
  rows: number;
  statements: number;
  encodeS: number;
  insertS: number;
}

/**
 * Inserts the benchmark's rows (same values, same run ids) into a scratch copy of
 * "BenchmarkPoint" with `INSERT … SELECT FROM unnest(…)` statements of `opts.baselineChunk` rows
 * (0: all rows in one statement) in one transaction. The table stays for the verification, which
 * compares it with what the server stored. Array encoding on the client is timed apart.
 */
async function baselineInsert(db: pg.Pool, opts: Options, runIds: number[]): Promise<BaselineResult> {
  const total = opts.workers * opts.frames * opts.points;
  const chunk = opts.baselineChunk === 0 ? total : opts.baselineChunk;
  const perWorker = opts.frames * opts.points;
  const names = POINT_COLUMNS.map(([n]) => `"${n}"`).join(", ");
  const arrays = POINT_COLUMNS.map(([, t], i) => `$${i + 2}::${t}[]`).join(", ");
  const sql = `INSERT INTO bench_scratch_point ("runId", ${names}) SELECT * FROM unnest($1::int4[], ${arrays})`;
  const client = await db.connect();
  const result: BaselineResult = { rows: 0, statements: 0, encodeS: 0, insertS: 0 };
  try {
    await client.query(`DROP TABLE IF EXISTS bench_scratch_point`);
    await client.query(`CREATE TABLE bench_scratch_point (LIKE "BenchmarkPoint" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`);
    await client.query("CHECKPOINT"); // start from the same clean state for every run of the benchmark
    let t = performance.now();
    await client.query("BEGIN");
    result.insertS += (performance.now() - t) / 1000;
    for (let from = 0; from < total; from += chunk) {
      t = performance.now();
      const runIdCol: number[] = [];
      const cols: string[][] = POINT_COLUMNS.map(() => []);
      for (let r = from; r < Math.min(total, from + chunk); r++) {
        const w = Math.floor(r / perWorker);
        const p = makePoint(opts.seed, w, Math.floor((r % perWorker) / opts.points), r % opts.points, opts.points);
        runIdCol.push(runIds[w]!);
        POINT_COLUMNS.forEach(([name], c) => cols[c]!.push(arrayElement(p[name])));
      }
      const params = [`{${runIdCol.join(",")}}`, ...cols.map((c) => `{${c.join(",")}}`)];
      const encoded = performance.now();
      result.encodeS += (encoded - t) / 1000;
      const res = await client.query(sql, params);
      result.insertS += (performance.now() - encoded) / 1000;
      result.rows += res.rowCount ?? 0;
      result.statements++;
    }
    t = performance.now();
    await client.query("COMMIT");
    result.insertS += (performance.now() - t) / 1000;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  return result;
}

// ---------------------------------------------------------------------------------------------

/** The `ingest` scenario: WebSocket ingest of run.benchmark frames vs a direct unnest load of the same rows, with a PASS/FAIL check of what was stored. */
export const scenario: Scenario = {
  name: "ingest",
  description: "run.benchmark frames over /ws/ingest (8 workers) vs the same rows loaded with INSERT … unnest; exactly-once check",
  run: runIngest,
};

async function runIngest({ full, log }: { full: boolean; log: (line: string) => void }): Promise<void> {
  const opts = parseOptions(full);
  const table = (title: string, rows: Array<[string, string] | null>) => printTable(title, rows, log);
  const totalFrames = opts.workers * opts.frames;
  const totalPoints = totalFrames * opts.points;
  log(`${opts.workers} workers × ${opts.frames} frames × ${opts.points} points = ${fmtInt(totalPoints)} points, window ${opts.window} frames/worker, timeout ${opts.timeoutS} s`);

  // 1. Build (when stale), database, migrations, token, server.
  const env = await startBenchEnvironment({ server: true, log });
  const db = env.pool;
  const token = env.token;
  const conn = { pid: env.postgresPid };
  const server = env.server!;
  const rssIdle = server.serverPid ? memoryKb(server.serverPid) : null;

  // 2. Workers: connect and start runs, then release them together.
  const stamp = Date.now().toString(36);
  const latencies = new Float64Array(totalFrames).fill(NaN);
  const workers: Worker[] = [];
  onCleanup("worker sockets", async () => workers.forEach((wk) => wk.close()));
  for (let w = 0; w < opts.workers; w++) workers.push(await openWorker(opts, w, server.url.replace(/^http/, "ws"), token, stamp, latencies));

  const pgCpu0 = treeCpuS(conn.pid);
  const srvCpu0 = server.serverPid ? treeCpuS(server.serverPid) : null;
  const machine0 = machineTicks();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const results = await Promise.all(workers.map((wk) => wk.go()));
  const t1 = Math.max(...results.map((r) => r.lastAckAt));
  const wallS = (t1 - t0) / 1000;
  const clientCpu = process.cpuUsage(client0);
  const machine1 = machineTicks();
  const srvCpu1 = server.serverPid ? treeCpuS(server.serverPid) : null;
  const pgCpu1 = treeCpuS(conn.pid);
  const rssAfter = server.serverPid ? memoryKb(server.serverPid) : null;
  workers.forEach((wk) => wk.close());

  const framesAcked = results.reduce((a, r) => a + r.framesAcked, 0);
  const pointsAcked = results.reduce((a, r) => a + r.pointsAcked, 0);
  const acks = results.reduce((a, r) => a + r.acks, 0) - opts.workers; // minus the run.start acks
  const duplicateAcks = results.reduce((a, r) => a + r.duplicateAcks, 0);
  const errors = results.flatMap((r) => r.errors);
  const sorted = latencies.filter((x) => !Number.isNaN(x)).sort();
  log(`ingest phase done in ${fmt(wallS, 2)} s`);

  // 3. Baseline.
  const runRows = await db.query<{ id: number; key: string }>(`SELECT id, key FROM "Run" WHERE key = ANY($1::text[])`, [workers.map((wk) => wk.runKey)]);
  const runIdByKey = new Map(runRows.rows.map((r) => [r.key, r.id]));
  const runIds = workers.map((wk) => runIdByKey.get(wk.runKey) ?? -1);
  log(`loading the same ${fmtInt(totalPoints)} rows directly into PostgreSQL for comparison`);
  const base = await baselineInsert(db, opts, runIds);

  // 4. Verification: every point stored exactly once, every frame id recorded once.
  const counts = await db.query<{ points: number; distinctPoints: number; completedSum: number | null; frames: number }>(
    `SELECT (SELECT count(*) FROM "BenchmarkPoint")::int AS points,
            (SELECT count(DISTINCT ("runId", key)) FROM "BenchmarkPoint" WHERE "runId" = ANY($1::int[]))::int AS "distinctPoints",
            (SELECT sum(completed) FROM "BenchmarkPoint")::int8 AS "completedSum",
            (SELECT count(*) FROM "IngestedFrame")::int AS frames`,
    [runIds],
  );
  const c = counts.rows[0]!;
  // The direct load holds exactly what the workers sent, so comparing all columns (but updatedAt)
  // checks every stored value, not just the row count.
  const cols = ['"runId"', ...POINT_COLUMNS.map(([n]) => `"${n}"`)].join(", ");
  const diff = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT ${cols} FROM "BenchmarkPoint" EXCEPT ALL SELECT ${cols} FROM bench_scratch_point) d`);
  const differing = diff.rows[0]!.n;
  await db.query(`DROP TABLE bench_scratch_point`);
  const expectedCompleted = results.reduce((a, r) => a + r.completedSum, 0);
  const checks: Array<[string, boolean, string]> = [
    ["every frame acked once, no errors", framesAcked === totalFrames && duplicateAcks === 0 && errors.length === 0, `${fmtInt(framesAcked)}/${fmtInt(totalFrames)} acked, ${duplicateAcks} duplicate acks, ${errors.length} errors`],
    ["rows in BenchmarkPoint = points sent", c.points === totalPoints && c.distinctPoints === totalPoints, `${fmtInt(c.points)} rows (${fmtInt(c.distinctPoints)} distinct keys) vs ${fmtInt(totalPoints)} sent`],
    ["sum(completed) matches what was sent", Number(c.completedSum) === expectedCompleted, `${fmtInt(Number(c.completedSum))} vs ${fmtInt(expectedCompleted)}`],
    ["stored values = values sent (all columns)", differing === 0 && c.points === base.rows, `${fmtInt(differing)} stored rows differ from the direct load of what was sent`],
    ["IngestedFrame rows = frames sent", c.frames === totalFrames + opts.workers, `${fmtInt(c.frames)} vs ${fmtInt(totalFrames + opts.workers)} (incl. ${opts.workers} run.start)`],
  ];
  const pass = checks.every(([, ok]) => ok);

  // 5. Report.
  const busyCores = machine0 && machine1 ? ((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * os.cpus().length : NaN;
  const srvCpu = srvCpu0 !== null && srvCpu1 !== null ? srvCpu1 - srvCpu0 : NaN;
  const pgCpu = pgCpu0 !== null && pgCpu1 !== null ? pgCpu1 - pgCpu0 : NaN;
  const clientCpuS = (clientCpu.user + clientCpu.system) / 1e6;
  const busyS = machine0 && machine1 ? (machine1.busy - machine0.busy) / CLK_TCK : NaN;
  table(
    `Pitwall ingest benchmark — ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}, ${opts.workers} workers × ${opts.frames} frames × ${opts.points} points, window ${opts.window}`,
    [
      ["frames committed (acked)", fmtInt(framesAcked)],
      ["points committed", fmtInt(pointsAcked)],
      ["wall time (release → last ack)", `${fmt(wallS, 2)} s`],
      ["frames/s committed", fmt(framesAcked / wallS, 0)],
      ["points/s committed", fmt(pointsAcked / wallS, 0)],
      ["acks (transactions) / frames per ack", `${fmtInt(acks)} / ${fmt(framesAcked / acks, 1)}`],
      ["server batch limit (PITWALL_INGEST_BATCH_FRAMES)", `${process.env.PITWALL_INGEST_BATCH_FRAMES || "500 (default)"} frames`],
      ["ack latency p50", `${fmt(percentile(sorted, 0.5), 1)} ms`],
      ["ack latency p95", `${fmt(percentile(sorted, 0.95), 1)} ms`],
      ["ack latency p99", `${fmt(percentile(sorted, 0.99), 1)} ms`],
      ["ack latency max", `${fmt(sorted[sorted.length - 1] ?? NaN, 1)} ms`],
      ["server RSS idle → after run", `${mib(rssIdle?.rssKb)} → ${mib(rssAfter?.rssKb)}`],
      ["server peak RSS (VmHWM)", mib(rssAfter?.hwmKb)],
      ["CPU s: server / postgres / bench client", `${fmt(srvCpu, 1)} / ${fmt(pgCpu, 1)} / ${fmt(clientCpuS, 1)}`],
      ["machine busy during ingest", `${fmt(busyCores, 2)} of ${os.cpus().length} cores`],
      ["CPU s used by anything else (other processes, kernel)", fmt(busyS - srvCpu - pgCpu - clientCpuS, 1)],
    ],
  );
  const baseRate = base.rows / base.insertS;
  table(
    "Comparison: the same rows loaded directly into PostgreSQL with `INSERT … SELECT FROM unnest(…)`\n" +
      '(not COPY: pg-copy-streams is not installed) into a scratch table LIKE "BenchmarkPoint" (same columns, defaults, primary key)',
    [
      ["rows", fmtInt(base.rows)],
      ["statements (one transaction)", `${fmtInt(base.statements)} × ≤ ${fmtInt(opts.baselineChunk || base.rows)} rows`],
      ["client-side array encoding (not counted)", `${fmt(base.encodeS, 2)} s`],
      ["statement time incl. COMMIT", `${fmt(base.insertS, 2)} s`],
      ["rows/s", fmt(baseRate, 0)],
      ["ingest points/s as share of this", `${fmt((100 * (pointsAcked / wallS)) / baseRate, 1)} %`],
    ],
  );
  table(
    `Verification: ${pass ? "PASS" : "FAIL"}`,
    checks.map(([name, ok, detail]) => [`${ok ? "PASS" : "FAIL"}  ${name}`, detail]),
  );
  if (errors.length) log(`\nfirst errors:\n  ${errors.slice(0, 5).join("\n  ")}`);
  log(`\n${pass ? "PASS" : "FAIL"}: ${pass ? "every point was stored exactly once" : "see the failed checks above"}`);
  if (!pass) {
    const serverErrors = server.logs.filter((l) => /"level":(50|60)/.test(l)).slice(-5);
    if (serverErrors.length) log(`server errors:\n  ${serverErrors.map((l) => l.slice(0, 800)).join("\n  ")}`);
    throw new Error("ingest verification FAILED");
  }
}

if (isMain(import.meta.url)) await runStandalone(scenario);
