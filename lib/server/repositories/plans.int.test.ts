import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { planListQuery } from "@/lib/api/plans";
import { ConflictError, NotFoundError } from "@/lib/server/errors";
import type { PlanItemView } from "@/lib/view-models/plans";
import { ingestHarness } from "@/test/support/ingest";

import { decidePlan } from "./plan-decisions";
import { diffPlanItems, getPlan, listPlans, pendingPlanCount } from "./plans";

// Read models of plans over a real PostgreSQL, seeded through the ingest code (plan.propose,
// run.start/run.end, session.todos) and decided through decidePlan: pending first, the linked
// run's state now against its state at proposal ("based on stale state"), expiry by time, and
// every decision with what it changed against the proposal.

// `ingest(at, ...)` validates frames like the transports do, then applies them at `at`. @throws on a frame that does not validate or apply.
const { pool, prisma, ingestAt: ingest, close } = await ingestHarness("agent-7");
afterAll(close);

const planId = async (key: string) =>
  (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key])).rows[0]!.id;

const ITEMS = [
  { content: "Start hidden-state extraction on 4 GPUs", priority: "high" },
  { content: "Upload to S3", priority: "medium" },
  { content: "Write the run report" },
];

describe("listPlans / getPlan", () => {
  test("a plan linked to a session and a running run; pending first; after approval with edits, the decision and its diff", async () => {
    const t0 = new Date();
    const session = `s-${randomUUID()}`;
    const run = `r-${randomUUID()}`;
    const plan = `p-${randomUUID()}`;
    await ingest(
      t0,
      {
        type: "session.todos",
        session,
        source: "claude-code",
        title: "Extraction agent",
        seq: 1,
        ts: t0.getTime(),
        items: [
          { content: "Plan extraction", status: "in_progress", activeForm: "Planning extraction" },
        ],
      },
      {
        type: "run.start",
        run,
        name: "hidden states 914K",
        kind: "extraction",
        startedAt: t0.getTime(),
      },
      {
        type: "plan.propose",
        plan,
        session,
        run,
        title: "Next: extraction upload",
        rationale: "Sweep done.\nStart extraction.",
        items: ITEMS,
      },
    );
    const id = await planId(plan);

    const list = await listPlans(prisma, planListQuery.parse({}), t0);
    expect(list.pendingCount).toBeGreaterThanOrEqual(1);
    const pendingIds = list.plans.filter((p) => p.state === "proposed").map((p) => p.id);
    expect(pendingIds).toContain(id);
    // Pending plans come before any decided one.
    const firstDecided = list.plans.findIndex((p) => p.state !== "proposed");
    if (firstDecided >= 0)
      expect(list.plans.slice(firstDecided).every((p) => p.state !== "proposed")).toBe(true);
    const row = list.plans.find((p) => p.id === id)!;
    expect(row).toMatchObject({
      title: "Next: extraction upload",
      state: "proposed",
      host: "agent-7",
      itemCount: 3,
      runStateAtProposal: "running",
      basedOnStaleState: false,
      decidedBy: null,
      decisionComment: null,
      supersedes: null,
      session: { title: "Extraction agent", key: session, source: "claude-code", project: null },
      run: { name: "hidden states 914K", state: "running", kind: "extraction" },
    });
    expect(Date.parse(row.expiresAt) - Date.parse(row.proposedAt)).toBe(24 * 3600 * 1000);

    const bySession = await listPlans(
      prisma,
      planListQuery.parse({ session: String(row.session!.id) }),
      t0,
    );
    expect(bySession.plans.map((p) => p.id)).toEqual([id]);
    expect(bySession.pendingCount).toBe(1);

    const before = await getPlan(prisma, id, t0);
    expect(before).toMatchObject({ rationale: "Sweep done.\nStart extraction.", decisions: [] });
    expect(before.items).toEqual([
      { content: "Start hidden-state extraction on 4 GPUs", priority: "high" },
      { content: "Upload to S3", priority: "medium" },
      { content: "Write the run report", priority: null },
    ]);
    expect(before.sessionDetail).toMatchObject({
      title: "Extraction agent",
      source: "claude-code",
      current: { activeForm: "Planning extraction" },
    });

    const edited = [
      {
        content: "Upload to S3; after upload remove local data; max 100 parallel",
        priority: "high" as const,
      },
      { content: "Start hidden-state extraction on 4 GPUs", priority: "high" as const },
      { content: "Alert on deleted-before-upload" },
    ];
    await decidePlan(
      pool,
      id,
      { decision: "approved", items: edited, comment: "proceed" },
      "alice",
      new Date(t0.getTime() + 1000),
    );
    const after = await getPlan(prisma, id, new Date(t0.getTime() + 2000));
    expect(after).toMatchObject({
      state: "approved",
      decidedBy: "alice",
      decidedAt: new Date(t0.getTime() + 1000).toISOString(),
      decisionComment: "proceed",
    });
    expect(after.decisions).toHaveLength(1);
    const d = after.decisions[0]!;
    expect(d).toMatchObject({ decision: "approved", decidedBy: "alice", comment: "proceed" });
    expect(d.changes.unchanged).toBe(false);
    expect(d.changes.items.map((c) => [c.change, c.fromPosition, c.moved, c.fromPriority])).toEqual(
      [
        ["edited", 2, false, "medium"],
        ["same", 1, true, undefined],
        ["added", null, false, undefined],
      ],
    );
    expect(d.changes.items[0]!.fromContent).toBe("Upload to S3");
    expect(d.changes.removed).toEqual([
      { item: { content: "Write the run report", priority: null }, position: 3 },
    ]);

    // Decided plans leave the pending count; deciding again names who decided first.
    expect(
      (await listPlans(prisma, planListQuery.parse({ session: String(row.session!.id) }), t0))
        .pendingCount,
    ).toBe(0);
    const again = decidePlan(pool, id, { decision: "rejected" }, "bob");
    await expect(again).rejects.toBeInstanceOf(ConflictError);
    await expect(again).rejects.toThrow(/already decided by alice at .* \(approved\)/);
  });

  test("based on stale state: the linked run failed after the proposal; a deleted run too", async () => {
    const t0 = new Date();
    const run = `r-${randomUUID()}`;
    const plan = `p-${randomUUID()}`;
    await ingest(
      t0,
      { type: "run.start", run, name: "sweep", kind: "benchmark" },
      { type: "plan.propose", plan, run, title: "Next", items: [{ content: "go on" }] },
    );
    const id = await planId(plan);
    expect((await getPlan(prisma, id, t0)).basedOnStaleState).toBe(false);

    await ingest(t0, { type: "run.end", run, status: "failed", error: "OOM" });
    const failed = await getPlan(prisma, id, t0);
    expect(failed).toMatchObject({
      runStateAtProposal: "running",
      basedOnStaleState: true,
      run: { status: "failed", state: "failed" },
    });

    // Silence past the run's stall threshold reads as stale too (derived at read time).
    const quietRun = `r-${randomUUID()}`;
    const quietPlan = `p-${randomUUID()}`;
    await ingest(
      t0,
      { type: "run.start", run: quietRun, name: "extract", kind: "extraction", stallAfterS: 60 },
      {
        type: "plan.propose",
        plan: quietPlan,
        run: quietRun,
        title: "Next",
        items: [{ content: "x" }],
      },
    );
    const quiet = await getPlan(
      prisma,
      await planId(quietPlan),
      new Date(t0.getTime() + 5 * 60_000),
    );
    expect(quiet).toMatchObject({
      basedOnStaleState: true,
      run: { status: "running", state: "stale" },
    });

    await pool.query(`DELETE FROM "Run" WHERE key = $1`, [run]);
    const gone = await getPlan(prisma, id, t0);
    expect(gone).toMatchObject({
      run: null,
      runStateAtProposal: "running",
      basedOnStaleState: true,
    });
  });

  test("a proposal past its expiry shows expired and no longer counts as pending, before the sweeper marks it", async () => {
    const t0 = new Date();
    const plan = `p-${randomUUID()}`;
    await ingest(t0, {
      type: "plan.propose",
      plan,
      title: "Short-lived",
      items: [{ content: "x" }],
      expiresInS: 60,
    });
    const id = await planId(plan);
    const countBefore = await pendingPlanCount(prisma, t0);
    const later = new Date(t0.getTime() + 61_000);
    expect((await getPlan(prisma, id, later)).state).toBe("expired");
    // Every other plan of this file has the default 24 h expiry: only this one left the count.
    expect(await pendingPlanCount(prisma, later)).toBe(countBefore - 1);
    const list = await listPlans(prisma, planListQuery.parse({ limit: 500 }), later);
    expect(list.plans.find((p) => p.id === id)?.state).toBe("expired");
    expect(list.plans.filter((p) => p.state === "proposed")).toHaveLength(list.pendingCount);
    await expect(decidePlan(pool, id, { decision: "approved" }, "carol", later)).rejects.toThrow(
      /expired/,
    );
  });

  test("limit 0 returns only the count; an unknown id is NotFoundError", async () => {
    const t0 = new Date();
    await ingest(t0, {
      type: "plan.propose",
      plan: `p-${randomUUID()}`,
      title: "Count me",
      items: [{ content: "x" }],
    });
    const only = await listPlans(prisma, planListQuery.parse({ limit: "0" }), t0);
    expect(only.plans).toEqual([]);
    expect(only.pendingCount).toBe(await pendingPlanCount(prisma, t0));
    expect(only.pendingCount).toBeGreaterThanOrEqual(1);
    await expect(getPlan(prisma, 2_000_000_000)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("diffPlanItems", () => {
  const item = (content: string, priority: PlanItemView["priority"] = null): PlanItemView => ({
    content,
    priority,
  });

  test("identical lists are unchanged; whitespace differences do not count", () => {
    const d = diffPlanItems([item("a b"), item("c", "high")], [item(" a  b "), item("c", "high")]);
    expect(d.unchanged).toBe(true);
  });

  test("a swap moves one item; a priority change alone is a change", () => {
    const swap = diffPlanItems(
      [item("first step"), item("second step")],
      [item("second step"), item("first step")],
    );
    expect(swap.items.map((c) => [c.change, c.moved])).toEqual([
      ["same", false],
      ["same", true],
    ]);
    expect(swap.unchanged).toBe(false);
    const prio = diffPlanItems([item("x", "low")], [item("x", "high")]);
    expect(prio.items[0]).toMatchObject({ change: "same", fromPriority: "low" });
    expect(prio.unchanged).toBe(false);
  });

  test("an unrelated rewrite is a removal and an addition, not an edit", () => {
    const d = diffPlanItems([item("Run the benchmark sweep")], [item("Ship the extraction job")]);
    expect(d.items.map((c) => c.change)).toEqual(["added"]);
    expect(d.removed.map((r) => r.position)).toEqual([1]);
  });
});
