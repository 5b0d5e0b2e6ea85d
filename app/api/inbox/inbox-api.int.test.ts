import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { decisionForAgent } from "@/clients/agent-hooks/lib/plan.mjs";
import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { InboxListView } from "@/lib/view-models/inbox";
import { newSignedInUser } from "@/test/support/people";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";
import { until } from "@/test/support/until";

// The inbox API through the real server: an agent (worker token) opens a permission item and
// long-polls; approvers decide (first wins, the second is told who); viewers and tokens cannot
// decide; tokens do not see the command; plans are listed and decidable from the inbox too;
// an item whose agent stopped waiting is refused with the reason; every decision is audited.

let server: SharedTestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;
let otherToken: string;
let alice: string;
let bob: string;
let viewer: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "gpu-box")).token;
  otherToken = (await createToken(prisma, "laptop")).token;
  alice = (await newSignedInUser(prisma, server.url, "approver")).cookie;
  bob = (await newSignedInUser(prisma, server.url, "admin")).cookie;
  viewer = (await newSignedInUser(prisma, server.url, "viewer")).cookie;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

const asWorker = (t: string) => ({
  authorization: `Bearer ${t}`,
  "content-type": "application/json",
});
const asPerson = (cookie: string) => ({
  cookie,
  origin: server.url,
  "content-type": "application/json",
});

async function open(body: Record<string, unknown> = {}): Promise<{ id: number; session: string }> {
  const session = `cc-${randomUUID()}`;
  const ingest = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify([
      {
        v: 1,
        id: randomUUID(),
        type: "session.activity",
        session,
        source: "claude-code",
        state: "waiting",
        ts: Date.now(),
        detail: "permission: Bash",
        cwd: "/home/ana/pitwall",
        project: "pitwall",
        gitBranch: "main",
      },
      {
        v: 1,
        id: randomUUID(),
        type: "session.todos",
        session,
        source: "claude-code",
        seq: 1,
        ts: Date.now(),
        items: [
          { content: "Run the tests", status: "in_progress", activeForm: "Running the tests" },
        ],
      },
    ]),
  });
  expect(ingest.status).toBe(200);
  const res = await fetch(`${server.url}/api/inbox`, {
    method: "POST",
    headers: asWorker(token),
    body: JSON.stringify({
      key: `cc:${session}:perm:1`,
      kind: "permission",
      agent: "claude-code",
      session,
      toolName: "Bash",
      summary: "pytest -x",
      input: { command: "pytest -x", description: "run tests" },
      expiresInS: 600,
      ...body,
    }),
  });
  expect(res.status).toBe(201);
  return { id: ((await res.json()) as { id: number }).id, session };
}

const list = async (headers: Record<string, string>) =>
  (await (await fetch(`${server.url}/api/inbox`, { headers })).json()) as InboxListView;
const decide = (id: string | number, cookie: string, body: Record<string, unknown>) =>
  fetch(`${server.url}/api/inbox/${id}/decision`, {
    method: "POST",
    headers: asPerson(cookie),
    body: JSON.stringify(body),
  });

test("an agent's permission shows in the inbox with its context; the long-poll gets an approval with the edited command; the second decider is told who won; the audit keeps it", async () => {
  const { id, session } = await open();
  const seen = await list(asPerson(viewer));
  const item = seen.items.find((i) => i.id === String(id))!;
  expect(item).toMatchObject({
    kind: "permission",
    agent: "claude-code",
    host: "gpu-box",
    toolName: "Bash",
    summary: "pytest -x",
    input: { command: "pytest -x" },
    todoInProgress: "Running the tests",
  });
  expect(item.session?.key).toBe(session);
  expect(item.waitingMs).toBeGreaterThanOrEqual(0);
  // Worker tokens may read the list, never the command.
  expect((await list(asWorker(otherToken))).items.find((i) => i.id === String(id))).toMatchObject({
    input: null,
    diff: null,
  });

  const started = Date.now();
  const poll = fetch(`${server.url}/api/inbox/${id}/decision?wait=30`, {
    headers: asWorker(token),
  }).then((r) => r.json());
  await until(
    "the waiter noted",
    async () =>
      (
        await pool.query(`SELECT 1 FROM "InboxItem" WHERE id = $1 AND "waiterSeenAt" IS NOT NULL`, [
          id,
        ])
      ).rowCount === 1,
    10_000,
  );
  // Viewers see, they do not decide; a bad body is refused with a specific code.
  expect((await decide(id, viewer, { decision: "allow" })).status).toBe(403);
  const bad = await decide(id, alice, { decision: "maybe" });
  expect(bad.status).toBe(400);
  const ok = await decide(id, alice, {
    decision: "allow",
    editedInput: { command: "pytest -x -q" },
  });
  expect(ok.status).toBe(200);
  const got = (await poll) as {
    status: string;
    decision: { decision: string; editedInput: unknown; decidedBy: string };
  };
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(got).toMatchObject({
    status: "decided",
    decision: {
      decision: "allow",
      editedInput: { command: "pytest -x -q" },
      decidedBy: "approver person",
    },
  });

  const second = await decide(id, bob, { decision: "deny", message: "no" });
  expect(second.status).toBe(409);
  expect(((await second.json()) as { error: { message: string } }).error.message).toMatch(
    /already decided by approver person/,
  );
  expect((await list(asPerson(viewer))).items.some((i) => i.id === String(id))).toBe(false);
  const audit = await pool.query(
    `SELECT decision, "decidedBy", "editedInput" FROM "InboxAudit" WHERE "itemId" = $1`,
    [id],
  );
  expect(audit.rows).toEqual([
    { decision: "allow", decidedBy: "approver person", editedInput: { command: "pytest -x -q" } },
  ]);
  // Another host's token may not read the decision.
  expect(
    (await fetch(`${server.url}/api/inbox/${id}/decision`, { headers: asWorker(otherToken) }))
      .status,
  ).toBe(403);
});

test("a denial carries its message; an item whose agent stopped polling is closed as answered in the terminal and refused with the reason", async () => {
  const { id } = await open();
  expect((await decide(id, bob, { decision: "deny", message: "use the staging DB" })).status).toBe(
    200,
  );
  const got = (await (
    await fetch(`${server.url}/api/inbox/${id}/decision`, { headers: asWorker(token) })
  ).json()) as { decision: { decision: string; message: string } };
  expect(got.decision).toMatchObject({ decision: "deny", message: "use the staging DB" });

  const other = await open();
  const ac = new AbortController();
  void fetch(`${server.url}/api/inbox/${other.id}/decision?wait=60`, {
    headers: asWorker(token),
    signal: ac.signal,
  }).catch(() => undefined);
  await until(
    "the waiter noted",
    async () =>
      (
        await pool.query(`SELECT 1 FROM "InboxItem" WHERE id = $1 AND "waiterSeenAt" IS NOT NULL`, [
          other.id,
        ])
      ).rowCount === 1,
    10_000,
  );
  ac.abort();
  await until(
    "closed",
    async () =>
      (await pool.query(`SELECT status FROM "InboxItem" WHERE id = $1`, [other.id])).rows[0]
        .status === "answered_in_terminal",
    15_000,
  );
  const late = await decide(other.id, alice, { decision: "allow" });
  expect(late.status).toBe(409);
  expect(await late.json()).toMatchObject({ error: { code: "answered_in_terminal" } });
});

test("a session that ends closes its items as agent ended", async () => {
  const { id, session } = await open();
  await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify([
      {
        v: 1,
        id: randomUUID(),
        type: "session.activity",
        session,
        source: "claude-code",
        state: "ended",
        ts: Date.now(),
      },
    ]),
  });
  const res = await decide(id, alice, { decision: "allow" });
  expect(res.status).toBe(409);
  expect(await res.json()).toMatchObject({ error: { code: "agent_ended" } });
});

test("a proposed plan is an inbox item with its markdown and page link, and is decided through the inbox", async () => {
  const key = `cc:${randomUUID()}:plan:1`;
  await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify([
      {
        v: 1,
        id: randomUUID(),
        type: "plan.propose",
        plan: key,
        title: "Sweep",
        body: "# Sweep\n\n1. Throughput",
        items: [{ content: "Throughput" }],
        expiresInS: 600,
      },
    ]),
  });
  const planId = (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key]))
    .rows[0]!.id;
  const entry = (await list(asPerson(viewer))).items.find((i) => i.id === `plan-${planId}`);
  expect(entry).toMatchObject({
    kind: "plan",
    summary: "Sweep",
    body: "# Sweep\n\n1. Throughput",
    href: `/plans/${planId}`,
  });
  expect(
    (await decide(`plan-${planId}`, alice, { decision: "deny", message: "not now" })).status,
  ).toBe(200);
  expect(
    (await pool.query(`SELECT status FROM "Plan" WHERE id = $1`, [planId])).rows[0].status,
  ).toBe("rejected");
  expect((await decide(`plan-${planId}`, bob, { decision: "allow" })).status).toBe(409);
});

test("a plan proposed without markdown shows its rationale and items in the inbox", async () => {
  const key = `oc:${randomUUID()}:plan`;
  await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify([
      {
        v: 1,
        id: randomUUID(),
        type: "plan.propose",
        plan: key,
        title: "Resume shards",
        rationale: "Uploads caught up.",
        items: [{ content: "Resume at 610k", priority: "high" }, { content: "Alert on disk" }],
        expiresInS: 600,
      },
    ]),
  });
  const planId = (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key]))
    .rows[0]!.id;
  const entry = (await list(asPerson(viewer))).items.find((i) => i.id === `plan-${planId}`);
  expect(entry?.body).toBe("Uploads caught up.\n\n1. Resume at 610k (high)\n2. Alert on disk");
});

test("bad requests get specific codes", async () => {
  expect(
    (
      await fetch(`${server.url}/api/inbox`, {
        method: "POST",
        headers: asWorker(token),
        body: JSON.stringify({ kind: "permission" }),
      })
    ).status,
  ).toBe(400);
  expect(
    (
      await fetch(`${server.url}/api/inbox`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      })
    ).status,
  ).toBe(401);
  expect((await decide("abc", alice, { decision: "allow" })).status).toBe(400);
  expect((await decide(999999, alice, { decision: "allow" })).status).toBe(404);
});

test("a plan approved with notes in the inbox: the proposer's decision carries them and the agent's plan ends with the note", async () => {
  const key = `cc:${randomUUID()}:plan:1`;
  const proposed = {
    title: "Sweep",
    body: "# Sweep\n\n1. Throughput\n",
    items: [{ content: "Throughput" }],
  };
  await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify([
      { v: 1, id: randomUUID(), type: "plan.propose", plan: key, ...proposed, expiresInS: 600 },
    ]),
  });
  const planId = (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key]))
    .rows[0]!.id;
  expect(
    (
      await decide(`plan-${planId}`, alice, {
        decision: "allow",
        message: "keep at most 100 uploads in flight",
      })
    ).status,
  ).toBe(200);
  const got = (await (
    await fetch(`${server.url}/api/plans/${encodeURIComponent(key)}/decision`, {
      headers: asWorker(token),
    })
  ).json()) as { status: string; decision: Record<string, unknown> };
  expect(got).toMatchObject({
    status: "approved",
    decision: { comment: "keep at most 100 uploads in flight", decidedBy: "approver person" },
  });
  // What the Claude Code hook then gives the model (ExitPlanMode's updatedInput.plan).
  expect(
    decisionForAgent(got.decision as unknown as Parameters<typeof decisionForAgent>[0], proposed),
  ).toEqual({
    allow: true,
    plan: `${proposed.body}\n\nNote from approver person (approved in Pitwall): keep at most 100 uploads in flight\n`,
  });
});
