import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";

import { sessionListQuery } from "@/lib/api/sessions";
import { checkFrame } from "@/lib/protocol";
import { listSessions } from "@/lib/server/repositories/sessions";
import { ingestHarness, type IngestHarness } from "@/test/support/ingest";

// `session.activity` and the plan body/supersedes fields through the real ingest path
// (validation, apply, a real PostgreSQL).

let h: IngestHarness;
beforeAll(async () => {
  h = await ingestHarness("agent-activity-box");
});
afterAll(async () => h?.close());

const sessionRow = async (key: string) =>
  (
    await h.pool.query<{
      state: string | null;
      stateAt: Date | null;
      stateDetail: string | null;
      cwd: string | null;
      project: string | null;
      gitBranch: string | null;
      model: string | null;
      source: string;
    }>(
      `SELECT state, "stateAt", "stateDetail", cwd, project, "gitBranch", model, source FROM "AgentSession" WHERE key = $1`,
      [key],
    )
  ).rows[0];

test("activity frames set the live state; a late (older) frame does not roll it back but fills facts in", async () => {
  const session = `cc-${randomUUID()}`;
  const t0 = 1_796_150_000_000;
  await h.ingest({
    type: "session.activity",
    session,
    source: "claude-code",
    state: "idle",
    ts: t0,
    cwd: "/home/dev/work/bench",
  });
  expect(await sessionRow(session)).toMatchObject({
    state: "idle",
    cwd: "/home/dev/work/bench",
    project: "bench",
    source: "claude-code",
  });

  await h.ingest({
    type: "session.activity",
    session,
    source: "claude-code",
    state: "waiting",
    ts: t0 + 5000,
    detail: "plan: Benchmark sweep",
  });
  // Spooled and sent late: older than the stored state.
  await h.ingest({
    type: "session.activity",
    session,
    source: "claude-code",
    state: "working",
    ts: t0 + 1000,
    gitBranch: "main",
    model: "claude-opus",
  });
  const row = await sessionRow(session);
  expect(row).toMatchObject({
    state: "waiting",
    stateDetail: "plan: Benchmark sweep",
    gitBranch: "main",
    model: "claude-opus",
    project: "bench",
  });
  expect(row!.stateAt!.getTime()).toBe(t0 + 5000);

  await h.ingest({
    type: "session.activity",
    session,
    source: "claude-code",
    state: "ended",
    ts: t0 + 9000,
  });
  expect(await sessionRow(session)).toMatchObject({ state: "ended", stateDetail: null });
});

test("a malformed activity frame is rejected alone with invalid_frame; the valid one beside it is stored", async () => {
  const session = `oc-${randomUUID()}`;
  const bad = checkFrame({
    v: 1,
    id: "a1",
    type: "session.activity",
    session,
    source: "opencode",
    state: "busy",
    ts: Date.now(),
    futureField: true,
  });
  expect(bad).toMatchObject({ ok: false, code: "invalid_frame" });
  expect(JSON.stringify(bad)).toMatch(/state/);
  await h.ingest({
    type: "session.activity",
    session,
    source: "opencode",
    state: "working",
    ts: Date.now(),
    project: "monitor",
  });
  expect(await sessionRow(session)).toMatchObject({ state: "working", project: "monitor" });
});

test("plan.propose stores the markdown body and the plan it supersedes", async () => {
  const session = `cc-${randomUUID()}`;
  const first = `${session}-plan-1`;
  const second = `${session}-plan-2`;
  await h.ingest({
    type: "plan.propose",
    plan: first,
    session,
    title: "Plan",
    items: [{ content: "Bench C=1..100" }],
    body: "# Plan\n1. Bench C=1..100\n",
  });
  await h.ingest({
    type: "plan.propose",
    plan: second,
    session,
    title: "Plan",
    items: [{ content: "Warm up" }, { content: "Bench C=1..100" }],
    body: "# Plan\n1. Warm up\n2. Bench C=1..100\n",
    supersedes: first,
  });
  const rows = await h.pool.query<{ key: string; body: string; supersedes: string | null }>(
    `SELECT key, body, supersedes FROM "Plan" WHERE key = ANY($1) ORDER BY key`,
    [[first, second]],
  );
  expect(rows.rows).toEqual([
    { key: first, body: "# Plan\n1. Bench C=1..100\n", supersedes: null },
    { key: second, body: "# Plan\n1. Warm up\n2. Bench C=1..100\n", supersedes: first },
  ]);
});

test("/sessions lists waiting sessions first, then working, idle, ended, with state, time in state and project", async () => {
  const tag = randomUUID().slice(0, 8);
  const t0 = Date.now() - 60_000;
  const states = ["ended", "idle", "waiting", "working"] as const;
  for (const [i, state] of states.entries()) {
    await h.ingest({
      type: "session.activity",
      session: `order-${tag}-${state}`,
      source: "claude-code",
      state,
      ts: t0 + i * 1000,
      cwd: `/work/${tag}`,
      gitBranch: "main",
      ...(state === "waiting" ? { detail: "plan: Sweep" } : {}),
    });
  }
  const list = await listSessions(h.prisma, sessionListQuery.parse({}));
  const ours = list.sessions.filter((s) => s.key.startsWith(`order-${tag}-`));
  expect(ours.map((s) => s.live?.state)).toEqual(["waiting", "working", "idle", "ended"]);
  expect(ours[0]).toMatchObject({
    project: tag,
    gitBranch: "main",
    live: { state: "waiting", detail: "plan: Sweep", since: new Date(t0 + 2000).toISOString() },
  });
});
