import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

import { freePort, startPython, venvPython } from "./python-process";

// pitwall.boto3.instrument(run) with the real boto3 (from .venv-test) uploading to a real
// S3-compatible server (s3rver) behind a small proxy that injects failures: a key named
// flaky-* fails its first attempt with HTTP 500 (boto3 retries it), broken-* always fails.
// The counters the run holds in PostgreSQL are checked against what happened.

let databaseUrl: string;
let server: TestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let dir: string;
let python: string;
let s3: S3rver;
let proxy: http.Server;
let proxyUrl: string;

beforeAll(async () => {
  python = venvPython();
  databaseUrl = await createTestDatabase();
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "gpu-s3-py")).token;
  server = await startTestServer({ databaseUrl });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-py-s3-"));
  s3 = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: path.join(dir, "s3"),
    configureBuckets: [{ name: "hidden-states", configs: [] }],
  });
  const s3Address = (await s3.run()) as AddressInfo;
  const seen = new Set<string>();
  proxy = http.createServer((req, res) => {
    const url = req.url ?? "/";
    const injected =
      url.includes("/broken-") ||
      (url.includes("/flaky-") && req.method === "PUT" && !seen.has(url));
    if (url.includes("/flaky-")) seen.add(url);
    if (injected) {
      req.resume();
      req.on("end", () => {
        res.writeHead(500, { "Content-Type": "application/xml" });
        res.end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>injected</Message></Error>',
        );
      });
      return;
    }
    const upstream = http.request(
      {
        host: "127.0.0.1",
        port: s3Address.port,
        method: req.method,
        path: url,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await s3?.close();
  await server?.stop();
  await prisma?.$disconnect();
  await db?.end();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("pitwall.boto3", () => {
  test(
    "instrument(run) counts started, completed, failed, retried, bytes and in-flight of real uploads, multipart included",
    { timeout: 300_000 },
    async () => {
      const key = `py-s3-${randomUUID()}`;
      const big = path.join(dir, "shard-big.bin");
      await fs.writeFile(big, Buffer.alloc(12 * 1024 * 1024, 7));
      const py = await startPython(
        dir,
        `
import json, os, sys
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from boto3.s3.transfer import TransferConfig, S3UploadFailedError
import pitwall, pitwall.boto3

run = pitwall.init(kind="extraction", name="s3 uploads", key=os.environ["RUN_KEY"], min_interval_s=0)
counters = pitwall.boto3.instrument(run)
# The upload code below knows nothing of Pitwall. Path-style addressing and at most 3 attempts
# are the local S3 server's settings.
s3 = boto3.client("s3", endpoint_url=os.environ["S3_URL"], config=Config(s3={"addressing_style": "path"}, retries={"mode": "standard", "max_attempts": 3}))
for i in range(5):
    s3.put_object(Bucket="hidden-states", Key="ok-{}".format(i), Body=b"x" * 1000)
s3.put_object(Bucket="hidden-states", Key="flaky-1", Body=b"y" * 2000)
try:
    s3.put_object(Bucket="hidden-states", Key="broken-1", Body=b"z" * 10)
except ClientError:
    pass
multipart = TransferConfig(multipart_threshold=8 * 1024 * 1024, multipart_chunksize=8 * 1024 * 1024, max_concurrency=1)
s3.upload_file(sys.argv[1], "hidden-states", "big-1", Config=multipart)
try:
    s3.upload_file(sys.argv[1], "hidden-states", "broken-big", Config=multipart)
except S3UploadFailedError:
    pass
listed = sorted(o["Key"] for o in s3.list_objects_v2(Bucket="hidden-states")["Contents"])
print(json.dumps({"counters": counters.snapshot(), "listed": listed, "worker": run.worker_id, "ok": pitwall.finish(flush_timeout_s=60)}), flush=True)
`,
        {
          PITWALL_URL: server.url,
          PITWALL_TOKEN: token,
          PITWALL_SPOOL_DIR: path.join(dir, "spool"),
          RUN_KEY: key,
          S3_URL: proxyUrl,
          AWS_ACCESS_KEY_ID: "S3RVER",
          AWS_SECRET_ACCESS_KEY: "S3RVER",
          AWS_DEFAULT_REGION: "us-east-1",
          // s3rver predates S3's default CRC checksums with aws-chunked bodies.
          AWS_REQUEST_CHECKSUM_CALCULATION: "when_required",
          AWS_RESPONSE_CHECKSUM_VALIDATION: "when_required",
        },
        python,
        [big],
      );
      const out = (await py.next(240_000)) as {
        counters: Record<string, number>;
        listed: string[];
        worker: string;
        ok: boolean;
      };
      const { code, stderr } = await py.exited;
      expect(code, stderr).toBe(0);
      expect(out.ok).toBe(true);
      expect(out.listed).toEqual(["big-1", "flaky-1", "ok-0", "ok-1", "ok-2", "ok-3", "ok-4"]);
      const c = out.counters;
      expect(c).toMatchObject({
        "s3.started": 9, // 5 ok + flaky + broken + 2 multipart uploads
        "s3.completed": 7,
        "s3.failed": 2,
        "s3.bytes": 5 * 1000 + 2000 + 12 * 1024 * 1024,
        "s3.inflight": 0,
      });
      // flaky: 1 retry; broken-1: 2; broken-big: 2 per attempted part.
      expect(c["s3.retried"]).toBeGreaterThanOrEqual(5);
      const rows = (
        await db.query(
          `SELECT w.counters FROM "WorkerProgress" w JOIN "Run" r ON r.id = w."runId" WHERE r.key = $1 AND w."workerId" = $2`,
          [key, out.worker],
        )
      ).rows as Array<{ counters: Record<string, number> }>;
      expect(rows).toHaveLength(1);
      expect(rows[0]!.counters).toEqual(c);
    },
  );

  test(
    "an extraction loop (tqdm + boto3, one line each) killed with SIGKILL while Pitwall is down, then resumed: nothing lost",
    { timeout: 300_000 },
    async () => {
      const key = `py-s3-kill-${randomUUID()}`;
      const job = (stopAt: number, pitwallUrl: string) =>
        startPython(
          dir,
          `
import json, os, sys
import boto3
from botocore.config import Config
import pitwall, pitwall.boto3
from pitwall.tqdm import tqdm

run = pitwall.init(kind="extraction", name="extract + upload", key=os.environ["RUN_KEY"], min_interval_s=0, max_backoff_s=1)
pitwall.boto3.instrument(run)
# The job itself: resume-aware (skips what is uploaded), knows nothing of Pitwall beyond the two lines above.
s3 = boto3.client("s3", endpoint_url=os.environ["S3_URL"], config=Config(s3={"addressing_style": "path"}))
have = {o["Key"] for o in s3.list_objects_v2(Bucket="hidden-states", Prefix="sample-").get("Contents", [])}
todo = [i for i in range(40) if "sample-{:03d}".format(i) not in have]
bar = tqdm(total=40, initial=40 - len(todo), desc="samples", unit="sample", mininterval=0)
for n, i in enumerate(todo):
    if n == int(sys.argv[1]):
        print(json.dumps({"paused": n, "stats": run._pw.stats()}), flush=True)
        sys.stdin.readline()  # killed here
    s3.put_object(Bucket="hidden-states", Key="sample-{:03d}".format(i), Body=b"h" * 4096)
    bar.update(1)
bar.close()
print(json.dumps({"ok": pitwall.finish(flush_timeout_s=120), "worker": run.worker_id}), flush=True)
`,
          {
            PITWALL_URL: pitwallUrl,
            PITWALL_TOKEN: token,
            PITWALL_SPOOL_DIR: path.join(dir, "spool-kill"),
            RUN_KEY: key,
            S3_URL: proxyUrl,
            AWS_ACCESS_KEY_ID: "S3RVER",
            AWS_SECRET_ACCESS_KEY: "S3RVER",
            AWS_DEFAULT_REGION: "us-east-1",
            AWS_REQUEST_CHECKSUM_CALCULATION: "when_required",
            AWS_RESPONSE_CHECKSUM_VALIDATION: "when_required",
          },
          python,
          [String(stopAt)],
        );

      // Pitwall is down (nothing listens on its URL) for the whole first process: all it reported is in its spool.
      const first = await job(20, `http://127.0.0.1:${await freePort()}`);
      const paused = (await first.next(240_000)) as {
        paused: number;
        stats: { queued: number; sent: number };
      };
      expect(paused.paused).toBe(20);
      expect(paused.stats.sent).toBe(0);
      expect(paused.stats.queued).toBeGreaterThan(0);
      first.child.kill("SIGKILL");
      expect((await first.exited).signal).toBe("SIGKILL");

      const second = await job(-1, server.url);
      const done = (await second.next(240_000)) as { ok: boolean; worker: string };
      const { code, stderr } = await second.exited;
      expect(code, stderr).toBe(0);
      expect(done.ok).toBe(true);
      expect(stderr).toMatch(/resending \d+ frame\(s\) left in .* by an earlier process/);

      const run = (await db.query(`SELECT id, status FROM "Run" WHERE key = $1`, [key]))
        .rows[0] as { id: number; status: string };
      expect(run.status).toBe("succeeded");
      const workers = (
        await db.query(
          `SELECT "workerId", done, total, counters FROM "WorkerProgress" WHERE "runId" = $1`,
          [run.id],
        )
      ).rows as Array<{
        workerId: string;
        done: number;
        total: number;
        counters: Record<string, number>;
      }>;
      // Both processes' uploads are counted: 20 before the kill (from the spool), 20 after.
      const sum = (name: string) => workers.reduce((n, w) => n + (w.counters[name] ?? 0), 0);
      expect(sum("s3.completed")).toBe(40);
      expect(sum("s3.bytes")).toBe(40 * 4096);
      expect(sum("s3.failed")).toBe(0);
      // The restarted process continues the killed one's worker (the spool slot it took over): the
      // bar resumed at 20 of 40 and ended at 40, so the run's progress is 40 of 40, not 20 + 40.
      expect(workers).toEqual([
        {
          workerId: done.worker,
          done: 40,
          total: 40,
          counters: expect.objectContaining({ "s3.completed": 40, "s3.inflight": 0 }),
        },
      ]);
      const samples = (
        await db.query(
          `SELECT done FROM "ProgressSample" WHERE "runId" = $1 AND done IS NOT NULL ORDER BY id`,
          [run.id],
        )
      ).rows.map((r: { done: number }) => r.done);
      expect(samples.slice(0, 3)).toEqual([0, 1, 2]); // the killed process's readings, from its spool
      expect(samples).toContain(20);
      expect(samples.at(-1)).toBe(40);
    },
  );
});
