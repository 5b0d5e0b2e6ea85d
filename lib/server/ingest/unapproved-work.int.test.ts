import { randomUUID } from "node:crypto";
import { afterAll, expect, test } from "vitest";

import { listInboxAudit } from "@/lib/server/repositories/inbox-audit";
import { decidePlan } from "@/lib/server/repositories/plan-decisions";
import { getSession } from "@/lib/server/repositories/sessions";
import { ingestHarness } from "@/test/support/ingest";

// "Worked without approval" over a real PostgreSQL, through the ingest code: a session that runs a
// tool which edits files or runs commands (session.activity with `tool`, as the agent hooks send
// it) after proposing a plan and before any decision is flagged on its page and in the audit;
// reading tools, work after the decision, work before the proposal and plans closed without a
// decision are not.

const { pool, prisma, ingestAt, close } = await ingestHarness("unapproved-work-host");
afterAll(close);

const T0 = Date.parse("2026-12-06T09:00:00Z");
const sessionIdOf = async (key: string) =>
  (await pool.query<{ id: number }>(`SELECT id FROM "AgentSession" WHERE key = $1`, [key])).rows[0]!
    .id;
const planIdOf = async (key: string) =>
  (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key])).rows[0]!.id;
const toolRun = (session: string, tool: string, ts: number) => ({
  type: "session.activity",
  session,
  source: "opencode",
  state: "working",
  ts,
  detail: `ran ${tool}`,
  tool,
});

test("tools that edit or run between proposal and decision are flagged on the session page and in the audit; nothing else is", async () => {
  const session = `uw-${randomUUID()}`;
  const plan = `${session}:plan:1`;
  await ingestAt(T0, toolRun(session, "bash", T0)); // before any plan: fine
  await ingestAt(T0 + 1000, {
    type: "plan.propose",
    plan,
    session,
    title: "Extract on 4 GPUs",
    items: [{ content: "Extract" }],
  });
  // While the plan waits: a read is fine, a bash run and an edit are not.
  await ingestAt(T0 + 2000, toolRun(session, "read", T0 + 2000));
  await ingestAt(T0 + 3000, toolRun(session, "bash", T0 + 3000));
  await ingestAt(T0 + 4000, toolRun(session, "Edit", T0 + 4000));
  // The same activity re-sent (another frame id) changes nothing.
  await ingestAt(T0 + 4500, toolRun(session, "Edit", T0 + 4000));
  const planId = await planIdOf(plan);
  await decidePlan(
    pool,
    planId,
    { decision: "approved", comment: "go" },
    "Ava",
    new Date(T0 + 5000),
  );
  // After the decision: fine; a late (spooled) frame of a run before the decision still counts.
  await ingestAt(T0 + 6000, toolRun(session, "bash", T0 + 6000));
  await ingestAt(T0 + 7000, toolRun(session, "write", T0 + 4800));

  const id = await sessionIdOf(session);
  const page = await getSession(prisma, id, new Date(T0 + 8000));
  expect(page.unapprovedWork).toEqual([
    {
      planId,
      planTitle: "Extract on 4 GPUs",
      tool: "bash",
      detail: "ran bash",
      at: new Date(T0 + 3000).toISOString(),
    },
    {
      planId,
      planTitle: "Extract on 4 GPUs",
      tool: "Edit",
      detail: "ran Edit",
      at: new Date(T0 + 4000).toISOString(),
    },
    {
      planId,
      planTitle: "Extract on 4 GPUs",
      tool: "write",
      detail: "ran write",
      at: new Date(T0 + 4800).toISOString(),
    },
  ]);

  const audit = await listInboxAudit(pool, { sessionId: id });
  const flagged = audit.filter((e) => e.decision === "worked_without_approval");
  expect(flagged.map((e) => [e.toolName, e.decidedAt])).toEqual([
    ["write", new Date(T0 + 4800).toISOString()],
    ["Edit", new Date(T0 + 4000).toISOString()],
    ["bash", new Date(T0 + 3000).toISOString()],
  ]);
  expect(flagged[0]).toMatchObject({
    itemId: `plan-${planId}`,
    kind: "plan",
    decidedBy: "pitwall",
    byRule: false,
    agent: "opencode",
    host: "unapproved-work-host",
    summary: "Extract on 4 GPUs",
    message: "ran write before any decision on the plan",
    session: { id, key: session },
  });
  // The person's approval is in the same audit, after the flags it followed.
  expect(audit.find((e) => e.decision === "approved")?.decidedBy).toBe("Ava");
});

test("a plan closed without a decision (the agent ended) no longer flags work", async () => {
  const session = `uw-${randomUUID()}`;
  await ingestAt(T0, {
    type: "plan.propose",
    plan: `${session}:plan:1`,
    session,
    title: "Closed plan",
    items: [{ content: "x" }],
  });
  await ingestAt(T0 + 1000, {
    type: "session.activity",
    session,
    source: "opencode",
    state: "ended",
    ts: T0 + 1000,
  });
  await ingestAt(T0 + 2000, toolRun(session, "bash", T0 + 2000));
  const page = await getSession(prisma, await sessionIdOf(session), new Date(T0 + 3000));
  expect(page.unapprovedWork).toEqual([]);
});
