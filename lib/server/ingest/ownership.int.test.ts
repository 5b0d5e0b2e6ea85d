import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";

import { PrismaClient } from "@/generated/prisma/client";
import { decidePlan } from "@/lib/server/repositories/plan-decisions";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Ownership through the real server: a run, session or plan belongs to the host of the token
// that created it. Another host's token is refused with `forbidden` (naming the owner) when it
// would change it or read a plan's decision; a token created `--shared` may.

let server: SharedTestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
/** Tokens: host-a (owner of everything below), host-b (another host), bench-client (shared). */
const tokens = { a: "", b: "", shared: "" };

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  pool = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  tokens.a = (await createToken(prisma, "host-a")).token;
  tokens.b = (await createToken(prisma, "host-b")).token;
  tokens.shared = (await createToken(prisma, "bench-client", { shared: true })).token;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

type Result = { id: string; ok: boolean; code?: string; message?: string };

/** POSTs frames (v and id added) with `token`; returns the per-frame results. */
async function push(token: string, ...frames: Array<Record<string, unknown>>): Promise<Result[]> {
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(frames.map((f) => ({ v: 1, id: randomUUID(), ...f }))),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Result[] }).results;
}

const point = (tokPerS: number) => ({ key: "c1", concurrency: 1, outputTokPerS: tokPerS });

/** host-a starts a benchmark run (labelled `host`, default host-a) with one point; returns its key. */
async function runOfA(host?: string): Promise<string> {
  const run = `bench-${randomUUID()}`;
  const results = await push(
    tokens.a,
    { type: "run.start", run, name: "A's sweep", kind: "benchmark", ...(host ? { host } : {}) },
    { type: "run.benchmark", run, points: [point(100)] },
  );
  expect(results.map((r) => r.ok)).toEqual([true, true]);
  return run;
}

const storedRun = async (key: string) =>
  (
    await pool.query<{ status: string; outputTokPerS: number; owner: string; label: string }>(
      `SELECT r.status, p."outputTokPerS", o.name AS owner, h.name AS label FROM "Run" r JOIN "BenchmarkPoint" p ON p."runId" = r.id
       JOIN "Host" o ON o.id = r."ownerHostId" JOIN "Host" h ON h.id = r."hostId" WHERE r.key = $1`,
      [key],
    )
  ).rows[0]!;

function expectForbidden(result: Result | undefined, kind: string, key: string) {
  expect(result?.ok).toBe(false);
  expect(result?.code).toBe("forbidden");
  expect(result?.message).toContain(`${kind} '${key}' belongs to host host-a`);
  expect(result?.message).toContain("--shared");
}

describe("runs", () => {
  test("host B's token cannot overwrite a point of host A's run, end it, or re-start it; the run is unchanged", async () => {
    const run = await runOfA();
    const [overwrite] = await push(tokens.b, { type: "run.benchmark", run, points: [point(1)] });
    expectForbidden(overwrite, "run", run);
    const [end] = await push(tokens.b, {
      type: "run.end",
      run,
      status: "failed",
      error: "hijacked",
    });
    expectForbidden(end, "run", run);
    const [restart] = await push(tokens.b, {
      type: "run.start",
      run,
      name: "renamed by B",
      kind: "benchmark",
    });
    expectForbidden(restart, "run", run);
    const [progress, event] = await push(
      tokens.b,
      { type: "run.progress", run, bootId: "b1", done: 5, total: 10 },
      { type: "run.event", run, level: "info", message: "hi" },
    );
    expectForbidden(progress, "run", run);
    expectForbidden(event, "run", run);
    expect(await storedRun(run)).toMatchObject({
      status: "running",
      outputTokPerS: 100,
      owner: "host-a",
    });
    expect((await pool.query(`SELECT name FROM "Run" WHERE key = $1`, [run])).rows[0].name).toBe(
      "A's sweep",
    );
  });

  test("the owner itself, and a --shared token, may change it", async () => {
    const run = await runOfA();
    expect(
      (await push(tokens.a, { type: "run.benchmark", run, points: [point(120)] }))[0]!.ok,
    ).toBe(true);
    const shared = await push(
      tokens.shared,
      { type: "run.benchmark", run, points: [point(150)] },
      { type: "run.end", run, status: "succeeded" },
    );
    expect(shared.map((r) => r.ok)).toEqual([true, true]);
    expect(await storedRun(run)).toMatchObject({
      status: "succeeded",
      outputTokPerS: 150,
      owner: "host-a",
    });
  });

  test("the host label stays a label: a run host A's token starts for host 'gpu-7' is owned by host-a", async () => {
    const run = await runOfA("gpu-7");
    expect(await storedRun(run)).toMatchObject({ owner: "host-a", label: "gpu-7" });
    const [end] = await push(tokens.b, { type: "run.end", run, status: "failed" });
    expectForbidden(end, "run", run);
  });

  test("a refused frame leaves no trace: the same frame id is applied when the owner sends it", async () => {
    const run = await runOfA();
    const frame = { v: 1, id: randomUUID(), type: "run.end", run, status: "succeeded" };
    const send = (token: string) =>
      fetch(`${server.url}/api/ingest`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify([frame]),
      }).then(async (r) => ((await r.json()) as { results: Result[] }).results[0]!);
    expect((await send(tokens.b)).code).toBe("forbidden");
    expect(await send(tokens.a)).toMatchObject({ ok: true, duplicate: false });
    expect((await storedRun(run)).status).toBe("succeeded");
  });

  test("worker tokens keep read access to other hosts' runs", async () => {
    const run = await runOfA();
    const id = (await pool.query<{ id: number }>(`SELECT id FROM "Run" WHERE key = $1`, [run]))
      .rows[0]!.id;
    const res = await fetch(`${server.url}/api/runs/${id}`, {
      headers: { authorization: `Bearer ${tokens.b}` },
    });
    expect(res.status).toBe(200);
  });
});

describe("sessions", () => {
  test("host B's token cannot push todos into host A's session; a shared token can", async () => {
    const session = `s-${randomUUID()}`;
    const todos = (seq: number, content: string) => ({
      type: "session.todos",
      session,
      source: "claude-code",
      seq,
      ts: Date.UTC(2026, 10, 30, 9, seq),
      items: [{ content, status: "pending" }],
    });
    expect((await push(tokens.a, todos(0, "A's plan")))[0]!.ok).toBe(true);
    expectForbidden((await push(tokens.b, todos(0, "B overwrites")))[0], "session", session);
    expect((await push(tokens.shared, todos(1, "shared client adds")))[0]!.ok).toBe(true);
    const rows = await pool.query<{ seq: number; content: string }>(
      `SELECT t.seq, t.items->0->>'content' AS content FROM "TodoSnapshot" t JOIN "AgentSession" s ON s.id = t."sessionId" WHERE s.key = $1 ORDER BY seq`,
      [session],
    );
    expect(rows.rows).toEqual([
      { seq: 0, content: "A's plan" },
      { seq: 1, content: "shared client adds" },
    ]);
  });

  test("host B's token cannot change host A's session through session.activity (title, state, host shown); A and a shared token can", async () => {
    const session = `s-${randomUUID()}`;
    const activity = (ts: number, title: string, extra: Record<string, unknown> = {}) => ({
      type: "session.activity",
      session,
      source: "claude-code",
      state: "working",
      ts,
      title,
      ...extra,
    });
    expect(
      (await push(tokens.a, activity(Date.UTC(2026, 10, 30, 9, 0), "A's session")))[0]!.ok,
    ).toBe(true);
    expectForbidden(
      (
        await push(
          tokens.b,
          activity(Date.UTC(2026, 10, 30, 9, 1), "B took over", {
            state: "ended",
            host: "host-b",
            detail: "hijacked",
          }),
        )
      )[0],
      "session",
      session,
    );
    // Nor can B claim a session A created through todos by sending activity first.
    const viaTodos = `s-${randomUUID()}`;
    expect(
      (
        await push(tokens.a, {
          type: "session.todos",
          session: viaTodos,
          source: "claude-code",
          seq: 0,
          ts: Date.UTC(2026, 10, 30, 9),
          items: [],
        })
      )[0]!.ok,
    ).toBe(true);
    expectForbidden(
      (
        await push(tokens.b, { ...activity(Date.UTC(2026, 10, 30, 9, 2), "B"), session: viaTodos })
      )[0],
      "session",
      viaTodos,
    );
    let row = await pool.query<{ title: string; state: string; host: string; owner: string }>(
      `SELECT s.title, s.state, h.name AS host, o.name AS owner FROM "AgentSession" s JOIN "Host" h ON h.id = s."hostId" JOIN "Host" o ON o.id = s."ownerHostId" WHERE s.key = $1`,
      [session],
    );
    expect(row.rows[0]).toEqual({
      title: "A's session",
      state: "working",
      host: "host-a",
      owner: "host-a",
    });
    expect(
      (
        await push(tokens.a, activity(Date.UTC(2026, 10, 30, 9, 3), "A renames", { state: "idle" }))
      )[0]!.ok,
    ).toBe(true);
    expect(
      (await push(tokens.shared, activity(Date.UTC(2026, 10, 30, 9, 4), "shared renames")))[0]!.ok,
    ).toBe(true);
    row = await pool.query(
      `SELECT s.title, s.state, h.name AS host, o.name AS owner FROM "AgentSession" s JOIN "Host" h ON h.id = s."hostId" JOIN "Host" o ON o.id = s."ownerHostId" WHERE s.key = $1`,
      [session],
    );
    expect(row.rows[0]).toMatchObject({
      title: "shared renames",
      state: "working",
      owner: "host-a",
    });
  });
});

describe("baselines", () => {
  test("the first token that writes a baseline owns it: host B's token gets forbidden naming host-a; A and a shared token may change it", async () => {
    const name = `ref-${randomUUID().slice(0, 8)}`;
    const baseline = (value: number) => ({ type: "baseline.upsert", name, metric: "tau", value });
    expect((await push(tokens.a, baseline(12.4)))[0]!.ok).toBe(true);
    expectForbidden((await push(tokens.b, baseline(99)))[0], "baseline", name);
    const value = async () =>
      (
        await pool.query<{ value: number; owner: string }>(
          `SELECT b.value, h.name AS owner FROM "Baseline" b JOIN "Host" h ON h.id = b."ownerHostId" WHERE b.name = $1`,
          [name],
        )
      ).rows[0];
    expect(await value()).toEqual({ value: 12.4, owner: "host-a" });
    expect((await push(tokens.a, baseline(12.5)))[0]!.ok).toBe(true);
    expect((await push(tokens.shared, baseline(12.6)))[0]!.ok).toBe(true);
    expect(await value()).toEqual({ value: 12.6, owner: "host-a" });
  });
});

describe("plans", () => {
  const propose = (plan: string, title: string) => ({
    type: "plan.propose",
    plan,
    title,
    items: [{ content: "Upload checkpoint 1200 to S3" }],
  });
  const waitDecision = (plan: string, token: string) =>
    fetch(`${server.url}/api/plans/${plan}/decision`, {
      headers: { authorization: `Bearer ${token}` },
    });

  test("host B's token cannot re-title host A's plan nor read its decision (HTTP and ws); a shared token can", async () => {
    const plan = `plan-${randomUUID()}`;
    expect((await push(tokens.a, propose(plan, "A's plan")))[0]!.ok).toBe(true);
    expectForbidden((await push(tokens.b, propose(plan, "B's title")))[0], "plan", plan);
    expect(
      (await pool.query(`SELECT title FROM "Plan" WHERE key = $1`, [plan])).rows[0].title,
    ).toBe("A's plan");

    const id = (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [plan]))
      .rows[0]!.id;
    await decidePlan(
      pool,
      id,
      { decision: "approved", comment: "secret go-ahead" },
      "alice@example.com",
    );

    const denied = await waitDecision(plan, tokens.b);
    expect(denied.status).toBe(403);
    const body = (await denied.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("forbidden");
    expect(body.error.message).toContain(`plan '${plan}' belongs to host host-a`);
    expect(JSON.stringify(body)).not.toContain("secret go-ahead");

    // Over ws, re-sending the decided plan is how a proposer gets its decision: refused for B.
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws/ingest`, {
      headers: { authorization: `Bearer ${tokens.b}` },
    });
    const received: Array<Record<string, unknown>> = [];
    ws.on("message", (d) => received.push(JSON.parse(String(d)) as Record<string, unknown>));
    await new Promise<void>((resolve, reject) =>
      ws.once("open", () => resolve()).once("error", reject),
    );
    const frameId = randomUUID();
    ws.send(JSON.stringify({ v: 1, id: frameId, ...propose(plan, "A's plan") }));
    for (let i = 0; i < 100 && received.length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300)); // a decision, if any, would follow the answer
    ws.close();
    expect(received).toEqual([
      expect.objectContaining({ type: "error", id: frameId, code: "forbidden" }),
    ]);

    for (const token of [tokens.a, tokens.shared]) {
      const ok = await waitDecision(plan, token);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { decision: { comment: string } }).decision.comment).toBe(
        "secret go-ahead",
      );
    }
  });

  test("a shared token may edit another host's undecided plan", async () => {
    const plan = `plan-${randomUUID()}`;
    expect((await push(tokens.a, propose(plan, "A's plan")))[0]!.ok).toBe(true);
    expect((await push(tokens.shared, propose(plan, "edited by the shared client")))[0]!.ok).toBe(
      true,
    );
    expect(
      (await pool.query(`SELECT title FROM "Plan" WHERE key = $1`, [plan])).rows[0].title,
    ).toBe("edited by the shared client");
  });
});
