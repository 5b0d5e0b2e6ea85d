import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";

import { PrismaClient } from "@/generated/prisma/client";
import { checkFrame } from "@/lib/protocol";
import { decidePlan, expirePlans } from "@/lib/server/repositories/plan-decisions";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Agent sessions and plans through the real server: todo snapshots stored in order, a plan
// proposed over /ws/ingest receives its decision on the same socket (also after reconnecting),
// the HTTP long-poll returns it, decided plans are immutable, and undecided plans expire.

let server: SharedTestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "agent-box")).token;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

async function connect() {
  const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws/ingest`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const received: Array<Record<string, unknown>> = [];
  ws.on("message", (d) => received.push(JSON.parse(String(d)) as Record<string, unknown>));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const waitFor = async (pred: (f: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const hit = received.find(pred);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out; received ${JSON.stringify(received)}`);
  };
  return { ws, received, waitFor };
}

const post = async (frames: unknown[]) => {
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify(frames),
  });
  return (await res.json()) as { results: Array<{ ok: boolean; code?: string }> };
};

const planId = async (key: string) =>
  (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key])).rows[0]!.id;

describe("session.todos", () => {
  test("snapshots are stored per (session, seq); unknown statuses are kept; a malformed snapshot is rejected alone", async () => {
    const session = `s-${randomUUID()}`;
    const snap = (seq: number, ts: number, items: unknown[]) => ({
      v: 1,
      id: randomUUID(),
      type: "session.todos",
      session,
      source: "claude-code",
      title: "Bench Qwen3",
      seq,
      ts,
      items,
    });
    const t0 = Date.UTC(2026, 10, 29, 9, 0, 0);
    const res = await post([
      snap(0, t0, [
        {
          content: "Run throughput benchmark C=1 to C=100",
          status: "in_progress",
          priority: "high",
        },
      ]),
      snap(1, t0 + 60_000, [
        { content: "Run throughput benchmark C=1 to C=100", status: "failed", priority: "high" },
      ]),
      snap(2, t0 + 120_000, [{ content: "no status here" }]),
    ]);
    expect(res.results.map((r) => (r.ok ? "ok" : r.code))).toEqual(["ok", "ok", "invalid_frame"]);
    const s = (
      await pool.query(
        `SELECT id, source, title, "startedAt", "lastUpdateAt" FROM "AgentSession" WHERE key = $1`,
        [session],
      )
    ).rows[0];
    expect(s.source).toBe("claude-code");
    expect(s.startedAt.getTime()).toBe(t0);
    expect(s.lastUpdateAt.getTime()).toBe(t0 + 60_000);
    const snaps = (
      await pool.query(
        `SELECT seq, items FROM "TodoSnapshot" WHERE "sessionId" = $1 ORDER BY ts, seq`,
        [s.id],
      )
    ).rows;
    expect(snaps.map((r) => r.items[0].status)).toEqual(["in_progress", "failed"]);
  });

  test("the protocol rejects an item without content or status", () => {
    const check = checkFrame({
      v: 1,
      id: "x",
      type: "session.todos",
      session: "s",
      source: "pushed",
      seq: 0,
      ts: 1_788_000_000_000,
      items: [{ status: "pending" }],
    });
    expect(check.ok).toBe(false);
  });
});

describe("plans", () => {
  const propose = (plan: string, extra: Record<string, unknown> = {}) => ({
    v: 1,
    id: randomUUID(),
    type: "plan.propose",
    plan,
    title: "Next: extraction upload",
    rationale: "Benchmarks are done; start the 914K extraction.",
    items: [
      { content: "Start hidden-state extraction on 4 GPUs", priority: "high" },
      { content: "Upload to S3", priority: "medium" },
    ],
    ...extra,
  });

  test("the proposer's socket receives the decision, with the edited items and comment", async () => {
    const { ws, waitFor } = await connect();
    const plan = `p-${randomUUID()}`;
    const frame = propose(plan);
    ws.send(JSON.stringify(frame));
    await waitFor((f) => f.type === "ack" && (f.ids as string[]).includes(frame.id));
    const edited = [
      { content: "Start hidden-state extraction on 4 GPUs", priority: "high" as const },
      {
        content: "Upload to S3; after upload remove local data; max 100 parallel",
        priority: "high" as const,
      },
    ];
    await decidePlan(
      pool,
      await planId(plan),
      { decision: "approved", items: edited, comment: "proceed" },
      "alice",
    );
    const decision = await waitFor((f) => f.type === "plan.decision");
    expect(decision).toMatchObject({
      plan,
      decision: "approved",
      items: edited,
      comment: "proceed",
      decidedBy: "alice",
    });
    ws.close();
  });

  test("a decision made while the proposer was away is delivered when it re-sends its proposal", async () => {
    const plan = `p-${randomUUID()}`;
    const frame = propose(plan);
    const first = await connect();
    first.ws.send(JSON.stringify(frame));
    await first.waitFor((f) => f.type === "ack");
    first.ws.close();
    await decidePlan(pool, await planId(plan), { decision: "rejected", comment: "not now" }, "bob");

    const again = await connect();
    again.ws.send(JSON.stringify(frame)); // same frame id: a duplicate, acked again
    const decision = await again.waitFor((f) => f.type === "plan.decision");
    expect(decision).toMatchObject({ plan, decision: "rejected", comment: "not now" });
    again.ws.close();
  });

  test("a decided plan is immutable: deciding again is a conflict, re-proposing changes nothing", async () => {
    const plan = `p-${randomUUID()}`;
    await post([propose(plan)]);
    const id = await planId(plan);
    await decidePlan(
      pool,
      id,
      { decision: "changes_requested", comment: "split the upload step" },
      "carol",
    );
    await expect(decidePlan(pool, id, { decision: "approved" }, "dave")).rejects.toMatchObject({
      status: 409,
    });
    await post([propose(plan, { title: "sneaky rewrite" })]);
    const row = (await pool.query(`SELECT title, status FROM "Plan" WHERE id = $1`, [id])).rows[0];
    expect(row).toEqual({ title: "Next: extraction upload", status: "changes_requested" });
    const decisions = await pool.query(
      `SELECT count(*)::int AS n FROM "PlanDecision" WHERE "planId" = $1`,
      [id],
    );
    expect(decisions.rows[0].n).toBe(1);
  });

  test("GET /api/plans/:key/decision?wait long-polls until the decision arrives", async () => {
    const plan = `p-${randomUUID()}`;
    await post([propose(plan)]);
    const url = `${server.url}/api/plans/${encodeURIComponent(plan)}/decision`;
    const headers = { authorization: `Bearer ${token}` };
    expect(await (await fetch(url, { headers })).json()).toEqual({
      status: "proposed",
      decision: null,
    });

    const pending = fetch(`${url}?wait=30`, { headers }).then(
      (r) => r.json() as Promise<{ status: string; decision: { items: unknown[] } }>,
    );
    await new Promise((r) => setTimeout(r, 300));
    await decidePlan(pool, await planId(plan), { decision: "approved" }, "erin");
    const body = await pending;
    expect(body.status).toBe("approved");
    expect(body.decision.items).toHaveLength(2);

    expect((await fetch(`${server.url}/api/plans/no-such-plan/decision`, { headers })).status).toBe(
      404,
    );
    expect((await fetch(url)).status).toBe(401);
  });

  test("undecided plans expire; a plan linked to a stale run records that state", async () => {
    const run = `r-${randomUUID()}`;
    await post([
      {
        v: 1,
        id: randomUUID(),
        type: "run.start",
        run,
        name: "extract",
        kind: "extraction",
        stallAfterS: 5,
        startedAt: Date.now() - 60_000,
      },
    ]);
    await pool.query(`UPDATE "Run" SET "lastPushAt" = now() - interval '1 minute' WHERE key = $1`, [
      run,
    ]);
    const plan = `p-${randomUUID()}`;
    await post([propose(plan, { run, expiresInS: 60 })]);
    const row = (await pool.query(`SELECT "runStateAtProposal" FROM "Plan" WHERE key = $1`, [plan]))
      .rows[0];
    expect(row.runStateAtProposal).toBe("stale");

    expect(await expirePlans(pool, new Date(Date.now() + 61_000))).toBeGreaterThanOrEqual(1);
    const body = (await (
      await fetch(`${server.url}/api/plans/${plan}/decision`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { status: string };
    expect(body.status).toBe("expired");
  });
});
