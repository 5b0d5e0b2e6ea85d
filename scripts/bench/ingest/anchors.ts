/**
 * The `ingest` scenario's anchors: the same rows loaded without Pitwall — `COPY … FROM STDIN`
 * (text format, pg-copy-streams) and a bare `INSERT … SELECT FROM unnest(…)` into fresh tables
 * with the columns and primary key of a MetricPoint row (table "MetricRow") — and a Prometheus Pushgateway started on a free
 * loopback port (Debian's `prometheus-pushgateway`, no persistence file).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

import { HOST, onCleanup, sleep } from "../support";
import { copyText, unnestChunks, type IngestOptions } from "./workload";

/** Creates (replacing) table `name` with the columns, defaults and primary key of "MetricRow" (one row per point). */
export async function freshPointTable(db: pg.Pool, name: string): Promise<void> {
  await db.query(`DROP TABLE IF EXISTS ${name}`);
  await db.query(
    `CREATE TABLE ${name} (LIKE "MetricRow" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`,
  );
}

/**
 * COPYs every worker's rows into a fresh table `name`, one connection and one COPY per worker,
 * all at once (the text is encoded before the clock starts). Returns the wall time in s.
 */
export async function copyLoad(
  db: pg.Pool,
  opts: IngestOptions,
  runIds: number[],
  name: string,
): Promise<number> {
  await freshPointTable(db, name);
  const texts = runIds.map((runId, w) => Buffer.from(copyText(opts, w, runId)));
  const clients = await Promise.all(runIds.map(() => db.connect()));
  try {
    const t0 = performance.now();
    await Promise.all(
      clients.map((c, w) =>
        pipeline(
          Readable.from([texts[w]!]),
          c.query(copyFrom(`COPY ${name} ("runId", key, step, value, ts) FROM STDIN`)),
        ),
      ),
    );
    return (performance.now() - t0) / 1000;
  } finally {
    clients.forEach((c) => c.release());
  }
}

/**
 * Inserts every worker's rows into a fresh table `name` with one `INSERT … SELECT FROM
 * unnest($1::int4[], …)` per frame (autocommit), one connection per worker, all at once; pg
 * encodes the arrays (inside the clock). Returns the wall time in s.
 */
export async function unnestLoad(
  db: pg.Pool,
  opts: IngestOptions,
  runIds: number[],
  name: string,
): Promise<number> {
  await freshPointTable(db, name);
  const chunks = runIds.map((runId, w) => unnestChunks(opts, w, runId));
  const clients = await Promise.all(runIds.map(() => db.connect()));
  const sql = `INSERT INTO ${name} ("runId", key, step, value, ts) SELECT * FROM unnest($1::int4[], $2::text[], $3::int8[], $4::float8[], $5::timestamptz[])`;
  try {
    const t0 = performance.now();
    await Promise.all(
      clients.map(async (c, w) => {
        for (const chunk of chunks[w]!) await c.query(sql, chunk);
      }),
    );
    return (performance.now() - t0) / 1000;
  } finally {
    clients.forEach((c) => c.release());
  }
}

/** The Pushgateway binary, when installed. */
export function pushgatewayBinary(): string | null {
  for (const p of [
    "/usr/bin/prometheus-pushgateway",
    "/usr/local/bin/pushgateway",
    "/usr/bin/pushgateway",
  ])
    if (fs.existsSync(p)) return p;
  return null;
}

async function freePort(from: number, to: number): Promise<number> {
  for (let port = from; port <= to; port++) {
    const ok = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once("error", () => resolve(false));
      srv.listen(port, HOST, () => srv.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error(`no free port in ${from}..${to}`);
}

/**
 * Starts `binary` on a free loopback port in 7800..7899 (registered for cleanup) and waits until
 * it answers. Returns its base URL and pid. @throws Error when it does not come up in 10 s.
 */
export async function startPushgateway(binary: string): Promise<{ url: string; pid: number }> {
  const port = await freePort(7800, 7899);
  const child = spawn(binary, [`--web.listen-address=${HOST}:${port}`], { stdio: "ignore" });
  onCleanup("pushgateway", async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  });
  const url = `http://${HOST}:${port}`;
  for (let t = 0; t < 100; t++) {
    if (child.exitCode !== null) throw new Error(`pushgateway exited with ${child.exitCode}`);
    const up = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { url, pid: child.pid! };
    await sleep(100);
  }
  throw new Error("pushgateway did not answer in 10 s");
}
