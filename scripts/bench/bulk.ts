/**
 * Bench scenario `bulk` (`npm run bench bulk [--quick|--full]`; issue 22 item 2): the `ingest`
 * workload (8 workers × 1,000-point frames of one run each, ingest/workload.ts) against FAIR
 * anchors, i.e. ones that store what Pitwall stores:
 *   (a) Pitwall over /ws/ingest (acks after COMMIT);
 *   (b) a binary COPY of the identical rows Pitwall wrote (its blocks, tier, series and
 *       non-finite rows, dumped with `COPY … TO STDOUT (FORMAT binary)` after a warm-up round)
 *       into the same tables, emptied first: one COPY per table and worker share in parallel;
 *   (c) a durable raw write of the same frame bytes: each worker appends its frames' JSON to a
 *       file of its own with an fsync per frame (what an ack after a local disk write costs);
 *   (d) the Prometheus Pushgateway (when installed), a fresh process every round.
 * `--rounds` (quick 5, full 7) rounds in alternating order (anchors first, then Pitwall; the next
 * round the reverse), every round on emptied metric tables; per ratio the min-max over rounds
 * and the median. Target: Pitwall >= 0.3 x the block COPY in end-to-end points/s. Server and
 * PostgreSQL CPU per point are printed beside it. Figures are printed, never asserted.
 * Flags: those of `ingest` (--workers 8 --frames 40 --points 1000 --keys 10 --window 4), --rounds.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";

import { pushgatewayBinary, startPushgateway } from "./ingest/anchors";
import { openWorker, pushClient, type Worker } from "./ingest/workers";
import { frameText, parseIngestOptions, type IngestOptions } from "./ingest/workload";
import {
  fmt,
  fmtInt,
  isMain,
  onCleanup,
  runStandalone,
  startBenchEnvironment,
  treeCpuS,
  type BenchEnvironment,
  type Scenario,
  type ScenarioOptions,
} from "./support";

const TARGET_VS_BLOCK_COPY = 0.3;
/** The tables Pitwall's metric ingest writes, in an order their foreign keys accept. */
const TABLES = [
  '"MetricSeries"',
  '"MetricBlock"',
  '"MetricRow"',
  '"MetricTier"',
  '"MetricNonFinite"',
];

interface RoundFigures {
  pitwallPerS: number;
  blockCopyPerS: number;
  rawPerS: number;
  pushPerS: number | null;
  serverUsPerPoint: number;
  pgUsPerPoint: number;
}

async function emptyMetricTables(db: pg.Pool): Promise<void> {
  await db.query(`TRUNCATE ${TABLES.join(", ")}`);
  await db.query("CHECKPOINT");
}

async function pitwallRound(
  opts: IngestOptions,
  env: BenchEnvironment,
  label: string,
): Promise<{ perS: number; serverS: number; pgS: number }> {
  const server = env.server!;
  const wsUrl = server.url.replace(/^http/, "ws");
  const workers: Worker[] = [];
  for (let w = 0; w < opts.workers; w++)
    workers.push(await openWorker(opts, w, wsUrl, env.token, `bulk-${label}-w${w}`));
  const srv0 = treeCpuS(server.serverPid!) ?? NaN;
  const pg0 = treeCpuS(env.postgresPid) ?? NaN;
  const t0 = performance.now();
  const results = await Promise.all(workers.map((wk) => wk.go()));
  const wallS = (Math.max(...results.map((x) => x.lastAckAt)) - t0) / 1000;
  const serverS = (treeCpuS(server.serverPid!) ?? NaN) - srv0;
  const pgS = (treeCpuS(env.postgresPid) ?? NaN) - pg0;
  workers.forEach((wk) => wk.close());
  const errors = results.flatMap((x) => x.errors);
  if (errors.length) throw new Error(`Pitwall rejected frames: ${errors[0]}`);
  return {
    perS: (results.reduce((a, x) => a + x.framesAcked, 0) * opts.points) / wallS,
    serverS,
    pgS,
  };
}

/** Every metric table's rows as binary COPY data, split into `parts` by "runId" (one part per worker). */
async function dumpTables(db: pg.Pool, parts: number): Promise<Map<string, Buffer[]>> {
  const out = new Map<string, Buffer[]>();
  const c = await db.connect();
  try {
    for (const t of TABLES) {
      const bufs: Buffer[] = [];
      for (let p = 0; p < parts; p++) {
        const chunks: Buffer[] = [];
        await pipeline(
          c.query(
            copyTo(
              `COPY (SELECT * FROM ${t} WHERE "runId" % ${parts} = ${p}) TO STDOUT (FORMAT binary)`,
            ),
          ),
          new Writable({ write: (chunk: Buffer, _e, cb) => (chunks.push(chunk), cb()) }),
        );
        bufs.push(Buffer.concat(chunks));
      }
      out.set(t, bufs);
    }
  } finally {
    c.release();
  }
  return out;
}

/** COPYs the dumped rows back in: one connection per part, the tables one after another in each. Returns points/s. */
async function blockCopyRound(
  db: pg.Pool,
  dump: Map<string, Buffer[]>,
  points: number,
): Promise<number> {
  const parts = dump.get(TABLES[0]!)!.length;
  const clients = await Promise.all(Array.from({ length: parts }, () => db.connect()));
  try {
    const t0 = performance.now();
    await Promise.all(
      clients.map(async (c, p) => {
        await c.query("BEGIN");
        for (const t of TABLES)
          await pipeline(
            Readable.from([dump.get(t)![p]!]),
            c.query(copyFrom(`COPY ${t} FROM STDIN (FORMAT binary)`)),
          );
        await c.query("COMMIT");
      }),
    );
    return points / ((performance.now() - t0) / 1000);
  } finally {
    clients.forEach((c) => c.release());
  }
}

/** Each worker appends its frames' bytes to its own file, fsync after each. Returns points/s. */
async function rawWriteRound(opts: IngestOptions, dir: string, label: string): Promise<number> {
  const frames = Array.from({ length: opts.workers }, (_, w) =>
    Array.from({ length: opts.frames }, (_, f) =>
      Buffer.from(frameText(opts, w, f, `bulk-raw-w${w}`, `${label}-${f}`)),
    ),
  );
  const t0 = performance.now();
  await Promise.all(
    frames.map(async (list, w) => {
      const fh = await fsp.open(path.join(dir, `${label}-w${w}.jsonl`), "a");
      try {
        for (const b of list) {
          await fh.write(b);
          await fh.datasync();
        }
      } finally {
        await fh.close();
      }
    }),
  );
  return (opts.workers * opts.frames * opts.points) / ((performance.now() - t0) / 1000);
}

async function bulk({ full, log }: ScenarioOptions): Promise<void> {
  const opts = parseIngestOptions(full);
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { rounds: { type: "string" } },
    strict: false,
    allowPositionals: true,
  });
  const rounds = Number(values.rounds) >= 1 ? Number(values.rounds) : full ? 7 : 5;
  const points = opts.workers * opts.frames * opts.points;
  const env = await startBenchEnvironment({ server: true, log });
  const db = new pg.Pool({ connectionString: env.databaseUrl, max: opts.workers + 2 });
  db.on("error", () => undefined);
  onCleanup("bulk pool", () => db.end());
  const rawDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-bulk-raw-"));
  onCleanup("bulk raw files", () => fsp.rm(rawDir, { recursive: true, force: true }));
  const gatewayBinary = pushgatewayBinary();
  log(
    `${rounds} rounds of ${opts.workers} workers x ${opts.frames} frames x ${opts.points} points (${fmtInt(points)} points); ${os.cpus().length} cores, loadavg ${os
      .loadavg()
      .map((x) => fmt(x, 2))
      .join(" ")}`,
  );

  // Warm-up round: Pitwall's own rows, dumped as the block-COPY anchor's input.
  await emptyMetricTables(db);
  await pitwallRound(opts, env, "warm");
  const dump = await dumpTables(db, opts.workers);
  const dumpBytes = [...dump.values()].flat().reduce((a, b) => a + b.length, 0);
  log(
    `block-COPY input: Pitwall's own rows of the warm-up round, ${fmt(dumpBytes / 2 ** 20, 1)} MiB of binary COPY over ${TABLES.length} tables`,
  );

  const figures: RoundFigures[] = [];
  for (let r = 0; r < rounds; r++) {
    const anchorsFirst = r % 2 === 0;
    const anchors = async () => {
      await emptyMetricTables(db);
      const blockCopyPerS = await blockCopyRound(db, dump, points);
      const rawPerS = await rawWriteRound(opts, rawDir, `r${r}`);
      let pushPerS: number | null = null;
      if (gatewayBinary) {
        const gw = await startPushgateway(gatewayBinary); // fresh and empty every round
        const p0 = performance.now();
        const ends = await Promise.all(
          Array.from({ length: opts.workers }, (_, w) => pushClient(opts, w, gw.url)),
        );
        pushPerS = points / ((Math.max(...ends) - p0) / 1000);
        process.kill(gw.pid, "SIGTERM");
      }
      return { blockCopyPerS, rawPerS, pushPerS };
    };
    const pitwall = async () => {
      await emptyMetricTables(db);
      return pitwallRound(opts, env, `r${r}`);
    };
    const a = anchorsFirst ? await anchors() : null;
    const p = await pitwall();
    const b = a ?? (await anchors());
    figures.push({
      pitwallPerS: p.perS,
      blockCopyPerS: b.blockCopyPerS,
      rawPerS: b.rawPerS,
      pushPerS: b.pushPerS,
      serverUsPerPoint: (p.serverS / points) * 1e6,
      pgUsPerPoint: (p.pgS / points) * 1e6,
    });
    const f = figures.at(-1)!;
    log(
      `  round ${r + 1} (${anchorsFirst ? "anchors first" : "Pitwall first"}): Pitwall ${fmtInt(f.pitwallPerS)}/s | block COPY ${fmtInt(f.blockCopyPerS)}/s | raw write+fsync ${fmtInt(f.rawPerS)}/s | Pushgateway ${f.pushPerS === null ? "not installed" : `${fmtInt(f.pushPerS)}/s`} | CPU us/point server ${fmt(f.serverUsPerPoint, 2)}, PostgreSQL ${fmt(f.pgUsPerPoint, 2)}`,
    );
  }
  const range = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return { min: s[0]!, max: s[s.length - 1]!, median: s[Math.floor((s.length - 1) / 2)]! };
  };
  const ratioLine = (name: string, xs: number[], target?: number) => {
    const g = range(xs);
    log(
      `  ${name.padEnd(28)} median ${fmt(g.median, 2)} x, min ${fmt(g.min, 2)}, max ${fmt(g.max, 2)}${target === undefined ? "" : ` (target >= ${target} x: ${g.min >= target ? "met in every round" : g.median >= target ? "met at the median, not every round" : "NOT met"})`}`,
    );
  };
  log(`bulk ratios over ${rounds} rounds:`);
  ratioLine(
    "Pitwall / block COPY",
    figures.map((f) => f.pitwallPerS / f.blockCopyPerS),
    TARGET_VS_BLOCK_COPY,
  );
  ratioLine(
    "Pitwall / raw write+fsync",
    figures.map((f) => f.pitwallPerS / f.rawPerS),
  );
  if (figures.every((f) => f.pushPerS !== null))
    ratioLine(
      "Pitwall / Pushgateway",
      figures.map((f) => f.pitwallPerS / f.pushPerS!),
    );
  const cpu = range(figures.map((f) => f.serverUsPerPoint));
  const pgCpu = range(figures.map((f) => f.pgUsPerPoint));
  log(
    `  CPU us per point: server ${fmt(cpu.min, 2)}-${fmt(cpu.max, 2)}, PostgreSQL ${fmt(pgCpu.min, 2)}-${fmt(pgCpu.max, 2)}`,
  );
}

/** The `bulk` scenario (see the module comment). */
export const scenario: Scenario = {
  name: "bulk",
  description:
    "1,000-point frames against fair anchors: a binary COPY of Pitwall's own block/tier rows, a raw write+fsync of the frames, a fresh Pushgateway; 5 alternating rounds (target >= 0.3 x block COPY)",
  run: bulk,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
