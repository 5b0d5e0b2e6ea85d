import { execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { loadConfig } from "@/clients/agent-hooks/lib/config.mjs";
import { proposeAndWait } from "@/clients/agent-hooks/lib/plan.mjs";
import { postFrames as hookPostFrames } from "@/clients/agent-hooks/lib/spool.mjs";
import { PitwallPlugin } from "@/clients/opencode/pitwall.js";
import { PrismaClient } from "@/generated/prisma/client";
import { IngestHttpError, postFrames } from "@/lib/client/http";
import { PitwallSocket, type DisconnectInfo, type FrameRejection } from "@/lib/client/socket";
import { decidePlan } from "@/lib/server/repositories/plan-decisions";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { fixturePath } from "@/test/support/fixtures";
import { startTestServer, type TestServer } from "@/test/support/server";

// Issue 19: the SDK, the `pitwall` CLI and the agent hooks take several server URLs
// (PITWALL_URL=http://a:8080,http://b:8080) and fail over. Two real server instances share one
// real PostgreSQL; one is killed with SIGKILL mid-stream and every frame must still be stored
// exactly once (the dedupe table of frame ids lives in the shared database).

const exec = promisify(execFile);
const projectDir = path.resolve(import.meta.dirname, "../..");
const bin = path.join(projectDir, "bin", "pitwall.mjs");
const hookEntry = path.join(projectDir, "clients", "agent-hooks", "claude-code.mjs");

let databaseUrl: string;
let a: TestServer;
let b: TestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let tmp: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "failover-host")).token;
  a = await startTestServer({ databaseUrl });
  b = await startTestServer({ databaseUrl });
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-failover-"));
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await prisma?.$disconnect();
  await db?.end();
});

async function until(
  pred: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A URL on which nothing listens (connection refused). */
async function deadUrl(): Promise<string> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function metricSteps(runKey: string): Promise<{ count: number; distinct: number }> {
  const res = await db.query<{ count: string; distinct: string }>(
    `SELECT count(*) AS count, count(DISTINCT m.step) AS distinct FROM "MetricPoint" m JOIN "Run" r ON r.id = m."runId" WHERE r.key = $1 AND m.key = 'loss'`,
    [runKey],
  );
  return { count: Number(res.rows[0]!.count), distinct: Number(res.rows[0]!.distinct) };
}

async function countRows(table: "RunEvent" | "ProgressSample", runKey: string): Promise<number> {
  const res = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM "${table}" t JOIN "Run" r ON r.id = t."runId" WHERE r.key = $1`,
    [runKey],
  );
  return Number(res.rows[0]!.n);
}

async function runStatus(runKey: string): Promise<string | null> {
  const res = await db.query<{ status: string }>(`SELECT status FROM "Run" WHERE key = $1`, [
    runKey,
  ]);
  return res.rows[0]?.status ?? null;
}

describe("the SDK socket with two instances", () => {
  test(
    "kill -9 of the instance it is connected to: it moves to the other; every frame stored once, the run goes on",
    { timeout: 120_000 },
    async () => {
      const runKey = `failover-sdk-${randomUUID()}`;
      const socket = new PitwallSocket({
        url: `${a.url},${b.url}`,
        token,
        backoff: { initialMs: 100, maxMs: 400 },
      });
      const rejections: FrameRejection[] = [];
      const disconnects: DisconnectInfo[] = [];
      socket.on("rejected", (r) => rejections.push(r));
      socket.on("disconnect", (d) => disconnects.push(d));
      await socket.waitOpen();
      expect(socket.currentUrl).toBe(`ws://127.0.0.1:${a.port}/ws/ingest`);

      let step = 0;
      let events = 0;
      // One metric step per frame, an event every 50 (RunEvent rows have no natural key: a frame
      // applied twice shows up as an extra row).
      const produce = async (count: number) => {
        for (let n = 0; n < count; n++, step++) {
          socket.send({
            type: "run.metrics",
            run: runKey,
            points: [{ key: "loss", step, value: step / 3 }],
          });
          if (step % 50 === 49) {
            socket.send({ type: "run.event", run: runKey, message: `reached ${step + 1}` });
            events++;
          }
          if (n % 100 === 99) await new Promise((r) => setTimeout(r, 2));
        }
      };
      socket.send({ type: "run.start", run: runKey, name: "failover sdk", kind: "training" });
      await produce(2000);
      await until(() => socket.stats().acked >= 100, "the first acks");
      const atKill = socket.stats();
      await a.kill(); // SIGKILL: no graceful shutdown, unacked frames in flight
      expect(atKill.acked).toBeLessThan(atKill.queued);
      await produce(2000); // mid-stream: the worker never notices beyond a reconnect
      await socket.flush(60_000);
      socket.send({ type: "run.end", run: runKey, status: "succeeded" });
      await socket.flush(30_000);

      expect(rejections).toEqual([]);
      expect(socket.currentUrl).toBe(`ws://127.0.0.1:${b.port}/ws/ingest`);
      expect(disconnects[0]).toMatchObject({
        url: `ws://127.0.0.1:${a.port}/ws/ingest`,
        nextUrl: `ws://127.0.0.1:${b.port}/ws/ingest`,
      });
      expect(socket.stats()).toMatchObject({
        pending: 0,
        acked: 1 + 4000 + events + 1,
        reconnects: 1,
      });
      expect(await metricSteps(runKey)).toEqual({ count: 4000, distinct: 4000 });
      expect(await countRows("RunEvent", runKey)).toBe(events);
      expect(await runStatus(runKey)).toBe("succeeded");
      await socket.close();

      a = await startTestServer({ databaseUrl }); // for the next tests
    },
  );
});

describe("the pitwall CLI with two instances", () => {
  test(
    "`pitwall run`: kill -9 of the first instance mid-run; the run ends succeeded with every line stored once",
    { timeout: 120_000 },
    async () => {
      const runKey = `failover-cli-${randomUUID()}`;
      const script = path.join(tmp, "worker.mjs");
      const lines = 300;
      await fs.writeFile(
        script,
        `for (let i = 1; i <= ${lines}; i++) {\n` +
          `  console.log("PITWALL " + JSON.stringify({ done: i, total: ${lines}, metrics: { loss: 1 / i }, step: i, event: "line " + i }));\n` +
          `  await new Promise((r) => setTimeout(r, 25));\n}\n`,
      );
      const child = spawn(
        process.execPath,
        [
          bin,
          "run",
          "--kind",
          "training",
          "--key",
          runKey,
          "--name",
          "failover cli",
          "--",
          process.execPath,
          script,
        ],
        {
          cwd: projectDir,
          env: { ...process.env, PITWALL_URL: `${a.url}, ${b.url}/`, PITWALL_TOKEN: token },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) =>
        child.once("exit", (code) => resolve(code)),
      );
      await until(
        async () => (await metricSteps(runKey)).count >= 40,
        "the first lines stored",
        60_000,
      );
      const before = (await metricSteps(runKey)).count;
      await a.kill();
      expect(before).toBeLessThan(lines);
      expect(await exited).toBe(0);

      expect(stderr).toContain(`lost the connection to ws://127.0.0.1:${a.port}/ws/ingest`);
      expect(stderr).toContain(`trying ws://127.0.0.1:${b.port}/ws/ingest`);
      expect(await metricSteps(runKey)).toEqual({ count: lines, distinct: lines });
      expect(await countRows("RunEvent", runKey)).toBeGreaterThanOrEqual(lines); // plus the run's own start/end events
      const lineEvents = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM "RunEvent" e JOIN "Run" r ON r.id = e."runId" WHERE r.key = $1 AND e.message LIKE 'line %'`,
        [runKey],
      );
      expect(Number(lineEvents.rows[0]!.n)).toBe(lines);
      expect(await runStatus(runKey)).toBe("succeeded");

      a = await startTestServer({ databaseUrl });
    },
  );

  test("`pitwall import` posts to the next URL when the first refuses connections", async () => {
    const file = fixturePath(
      "sglang-bench-serving",
      "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
    );
    const rows = (await fs.readFile(file, "utf8")).split("\n").filter((l) => l.trim()).length;
    const name = `failover-import-${randomUUID()}`;
    const { stdout } = await exec(process.execPath, [bin, "import", file, "--name", name], {
      cwd: projectDir,
      env: { ...process.env, PITWALL_URL: `${await deadUrl()},${b.url}`, PITWALL_TOKEN: token },
    });
    expect(stdout).toContain("/runs");
    const points = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM "BenchmarkPoint" p JOIN "Run" r ON r.id = p."runId" WHERE r.name = $1`,
      [name],
    );
    expect(Number(points.rows[0]!.n)).toBe(rows);
  });

  test("HTTP posts fail over on 5xx and connection errors, never on 4xx", async () => {
    let hits = 0;
    let status = 503;
    const stub = http.createServer((req, res) => {
      hits++;
      req.resume();
      res.writeHead(status, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: { code: status === 503 ? "unavailable" : "invalid_request", message: "stub" },
        }),
      );
    });
    await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
    const stubUrl = `http://127.0.0.1:${(stub.address() as net.AddressInfo).port}`;
    try {
      const run = `failover-http-${randomUUID()}`;
      const frame = {
        v: 1 as const,
        id: `${run}-start`,
        type: "run.start" as const,
        run,
        name: "http failover",
        kind: "eval" as const,
      };
      // 503 from the first instance: the batch goes to the next, and is stored once.
      expect(await postFrames([stubUrl, b.url], token, [frame])).toEqual([
        { id: frame.id, ok: true, duplicate: false },
      ]);
      // Sent again (as after a timeout whose commit we never heard of): a duplicate, not a second apply.
      expect(await postFrames(`${await deadUrl()},${b.url}`, token, [frame])).toEqual([
        { id: frame.id, ok: true, duplicate: true },
      ]);
      // A 4xx is an answer: no failover, the error is the caller's.
      status = 400;
      const frame2 = { ...frame, id: `${run}-again`, name: "must not reach b" };
      // (A list not used before: the client starts with the instance that last answered for a list.)
      const err = await postFrames([stubUrl, `http://localhost:${b.port}`], token, [frame2]).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(IngestHttpError);
      expect((err as IngestHttpError).status).toBe(400);
      const stored = await db.query<{ name: string }>(`SELECT name FROM "Run" WHERE key = $1`, [
        run,
      ]);
      expect(stored.rows).toEqual([{ name: "http failover" }]);
      expect(hits).toBe(2);
    } finally {
      stub.close();
    }
  });
});

describe("the agent hooks with two instances", () => {
  const fixture = fixturePath("agent-hooks", "claude-code-2.1.328_hooks_plan-approved.jsonl");

  test("Claude Code hook: a todo snapshot reaches the surviving instance when the first URL is dead", async () => {
    const line = (await fs.readFile(fixture, "utf8"))
      .split("\n")
      .find((l) => l.includes('"_label":"PostToolUse-TodoWrite"'))!;
    const { _label, _t, ...event } = JSON.parse(line) as Record<string, unknown>;
    const session = `failover-${randomUUID()}`;
    const stateDir = await fs.mkdtemp(path.join(tmp, "hook-"));
    const dead = await deadUrl();
    const child = spawn(process.execPath, [hookEntry, "claude-code"], {
      env: {
        ...process.env,
        HOME: stateDir,
        PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
        PITWALL_AGENT_STATE_DIR: stateDir,
        PITWALL_URL: `${dead},${b.url}`,
        PITWALL_TOKEN: token,
      },
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(JSON.stringify({ ...event, session_id: session }));
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    expect(stderr).toBe("");

    const snap = await db.query<{ seq: number; n: number }>(
      `SELECT t.seq, jsonb_array_length(t.items) AS n FROM "TodoSnapshot" t JOIN "AgentSession" s ON s.id = t."sessionId" WHERE s.key = $1`,
      [session],
    );
    expect(snap.rows).toEqual([{ seq: 1, n: expect.any(Number) }]);
    expect(snap.rows[0]!.n).toBeGreaterThan(0);
    // Delivered at once (no spool left behind), and the next hook process starts with the live instance.
    expect(await fs.readdir(path.join(stateDir, "spool"))).toEqual([]);
    expect(await fs.readFile(path.join(stateDir, "last-url"), "utf8")).toBe(b.url);
  });

  test(
    "opencode plugin and plan gate: todo and plan frames reach the surviving instance",
    { timeout: 60_000 },
    async () => {
      const stateDir = await fs.mkdtemp(path.join(tmp, "oc-"));
      const env = {
        PITWALL_URL: `${await deadUrl()},${b.url}`,
        PITWALL_TOKEN: token,
        PITWALL_AGENT_STATE_DIR: stateDir,
        PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
      };
      const saved = { ...process.env };
      Object.assign(process.env, env);
      try {
        const hooks = await PitwallPlugin({ directory: stateDir });
        const session = `oc-failover-${randomUUID()}`;
        await hooks.event({
          event: {
            type: "todo.updated",
            properties: {
              sessionID: session,
              todos: [{ id: "1", content: "fail over", status: "in_progress", priority: "high" }],
            },
          },
        });
        const snap = await db.query(
          `SELECT t.items FROM "TodoSnapshot" t JOIN "AgentSession" s ON s.id = t."sessionId" WHERE s.key = $1`,
          [session],
        );
        expect(snap.rows).toEqual([
          { items: [{ id: "1", content: "fail over", status: "in_progress", priority: "high" }] },
        ]);

        // The plan gate proposes through the failover post and long-polls through the next URL too.
        const cfg = loadConfig(env);
        expect(cfg.urls).toEqual([env.PITWALL_URL.split(",")[0], b.url]);
        await fs.rm(path.join(stateDir, "last-url"), { force: true }); // start at the dead URL again
        const plan = `failover-plan-${randomUUID()}`;
        const waiting = proposeAndWait(
          cfg,
          {
            v: 1,
            id: `${plan}:propose`,
            type: "plan.propose",
            plan,
            title: "fail over",
            items: [{ content: "step" }],
            expiresInS: 60,
          },
          {
            timeoutS: 40,
            postFrames: hookPostFrames,
            sleep: () => new Promise((r) => setTimeout(r, 50)),
          },
        );
        let planId = 0;
        await until(async () => {
          const stored = await db.query<{ id: number; title: string; status: string }>(
            `SELECT id, title, status FROM "Plan" WHERE key = $1`,
            [plan],
          );
          planId = stored.rows[0]?.id ?? 0;
          return stored.rows[0]?.status === "proposed";
        }, "the proposal on the surviving instance");
        // A person decides; the gate's long poll (first URL dead) hears it from the surviving instance.
        await decidePlan(db, planId, { decision: "approved", comment: "go" }, "alice");
        expect(await waiting).toMatchObject({
          decision: "approved",
          comment: "go",
          decidedBy: "alice",
        });
      } finally {
        for (const k of Object.keys(env)) delete process.env[k];
        Object.assign(process.env, saved);
      }
    },
  );
});
