import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { newSignedInUser } from "@/test/support/people";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";
import { until } from "@/test/support/until";

// Plans never orphaned, through the real server: a plan whose proposer stops polling (the hook
// process was stopped because the person answered in the terminal) closes as "answered in the
// terminal" within seconds; one whose session ends closes as "agent ended" at once; deciding
// either is refused with 409 and the reason's code; a proposer that polls again in time keeps it.

let server: SharedTestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;
let cookie: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "agent-box")).token;
  cookie = (await newSignedInUser(prisma, server.url, "approver")).cookie;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

const post = async (frames: Array<Record<string, unknown>>) => {
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify(frames.map((f) => ({ v: 1, id: randomUUID(), ...f }))),
  });
  const body = (await res.json()) as { results: Array<{ ok: boolean; code?: string }> };
  expect(body.results.every((r) => r.ok)).toBe(true);
};

async function proposed(): Promise<{ session: string; key: string; id: number }> {
  const session = `cc-${randomUUID()}`;
  const key = `cc:${session}:plan:1`;
  await post([
    {
      type: "session.activity",
      session,
      source: "claude-code",
      state: "waiting",
      ts: Date.now(),
      detail: "plan: Sweep",
    },
    {
      type: "plan.propose",
      plan: key,
      session,
      title: "Sweep",
      items: [{ content: "Throughput C=1..100" }],
      expiresInS: 1800,
    },
  ]);
  const id = (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key]))
    .rows[0]!.id;
  return { session, key, id };
}

/** Starts the proposer's long-poll, as the hook's plan gate does; abort() is the hook process being stopped. */
function poll(key: string): AbortController {
  const ac = new AbortController();
  void fetch(`${server.url}/api/plans/${encodeURIComponent(key)}/decision?wait=60`, {
    headers: { authorization: `Bearer ${token}` },
    signal: ac.signal,
  }).catch(() => undefined);
  return ac;
}

const plan = async (id: number) =>
  (
    await pool.query<{ status: string; closedReason: string | null }>(
      `SELECT status, "closedReason" FROM "Plan" WHERE id = $1`,
      [id],
    )
  ).rows[0]!;

const decide = (id: number) =>
  fetch(`${server.url}/api/plans/by-id/${id}/decision`, {
    method: "POST",
    headers: { cookie, origin: server.url, "content-type": "application/json" },
    body: JSON.stringify({ decision: "approved" }),
  });

test("the proposer's poll stops and no newer one comes: closed as answered in the terminal within seconds; a decision is refused with 409 plan_answered_in_terminal", async () => {
  const { id, key } = await proposed();
  const ac = poll(key);
  await until(
    "the waiter noted",
    async () =>
      (await pool.query(`SELECT 1 FROM "Plan" WHERE id = $1 AND "waiterSeenAt" IS NOT NULL`, [id]))
        .rowCount === 1,
    10_000,
  );
  const stoppedAt = Date.now();
  ac.abort();
  await until("the plan closed", async () => (await plan(id)).status === "expired", 15_000);
  expect(Date.now() - stoppedAt).toBeLessThan(10_000);
  expect(await plan(id)).toEqual({ status: "expired", closedReason: "answered_in_terminal" });
  const res = await decide(id);
  expect(res.status).toBe(409);
  expect(await res.json()).toMatchObject({ error: { code: "plan_answered_in_terminal" } });
  // The plan API and the decision the hook would read both say why.
  const view = (await (
    await fetch(`${server.url}/api/plans/by-id/${id}`, { headers: { cookie } })
  ).json()) as { state: string; closedReason: string; decisions: Array<{ comment: string }> };
  expect(view).toMatchObject({ state: "expired", closedReason: "answered_in_terminal" });
  expect(view.decisions.at(-1)!.comment).toBe("answered in the terminal");
});

test("a proposer that polls again within the grace time keeps its plan waiting (a normal re-poll or a network blip)", async () => {
  const { id, key } = await proposed();
  const first = poll(key);
  await until(
    "the waiter noted",
    async () =>
      (await pool.query(`SELECT 1 FROM "Plan" WHERE id = $1 AND "waiterSeenAt" IS NOT NULL`, [id]))
        .rowCount === 1,
    10_000,
  );
  first.abort();
  await new Promise((r) => setTimeout(r, 1000));
  const second = poll(key);
  await new Promise((r) => setTimeout(r, 7000));
  expect(await plan(id)).toEqual({ status: "proposed", closedReason: null });
  second.abort();
});

test("the session ends while its plan waits: closed as agent ended at once; a decision is refused with 409 plan_agent_ended", async () => {
  const { id, session } = await proposed();
  await post([
    {
      type: "session.activity",
      session,
      source: "claude-code",
      state: "ended",
      ts: Date.now(),
      detail: "other",
    },
  ]);
  expect(await plan(id)).toEqual({ status: "expired", closedReason: "agent_ended" });
  const res = await decide(id);
  expect(res.status).toBe(409);
  expect(await res.json()).toMatchObject({ error: { code: "plan_agent_ended" } });
  // It no longer counts as waiting. The list is of this session's plans: the shared server's
  // database holds other files' plans too, and the list is the newest 100.
  const sessionId = (
    await pool.query<{ id: number }>(`SELECT id FROM "AgentSession" WHERE key = $1`, [session])
  ).rows[0]!.id;
  const list = (await (
    await fetch(`${server.url}/api/plans?session=${sessionId}`, { headers: { cookie } })
  ).json()) as {
    plans: Array<{ id: number; state: string }>;
  };
  expect(list.plans.find((p) => p.id === id)?.state).toBe("expired");
});
