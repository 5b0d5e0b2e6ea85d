import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { sessionListQuery } from "@/lib/api/sessions";
import { importFiles } from "@/lib/importers";
import { fixture } from "@/lib/importers/testing";
import { checkFrame, type ClientFrame } from "@/lib/protocol";
import { NotFoundError } from "@/lib/server/errors";
import { applyFrames } from "@/lib/server/ingest/apply";
import { ingestHarness } from "@/test/support/ingest";

import { getSession, listSessions } from "./sessions";

// Read models of agent sessions over a real PostgreSQL, seeded through the ingest code a worker's
// frames take: the list's progress and current item, a session's timeline with diffs, item
// histories, and that a malformed snapshot never replaces the last good one.

const { pool, prisma, principal, close } = await ingestHarness("agent-box");
afterAll(close);

/** Validates frames like the transports do, then applies them; returns the outcome codes ("ok" or the error code). */
async function ingest(...raw: Array<Record<string, unknown>>): Promise<string[]> {
  const frames: ClientFrame[] = [];
  const codes: Array<string | null> = [];
  for (const r of raw) {
    const check = checkFrame({ v: 1, id: randomUUID(), ...r });
    if (check.ok) {
      frames.push(check.frame as ClientFrame);
      codes.push(null);
    } else codes.push(check.code);
  }
  const outcomes = await applyFrames(pool, principal, frames);
  let k = 0;
  return codes.map((c) => c ?? (outcomes[k++]!.ok ? "ok" : "rejected"));
}

const sessionId = async (key: string) =>
  (await pool.query<{ id: number }>(`SELECT id FROM "AgentSession" WHERE key = $1`, [key])).rows[0]!
    .id;

describe("the Claude Code fixture (3 TodoWrite snapshots, old item shape)", () => {
  test("lists with its progress and in-progress item; its page has the timeline newest first with diffs and the item histories", async () => {
    const file = fixture(
      "claude-code-transcript",
      "claude-code-log_todowrite_examples_v1.0.24.jsonl",
    );
    const { sessions } = importFiles([{ path: file.path, text: file.text }]);
    expect(sessions).toHaveLength(1);
    expect(
      await ingest(...(sessions[0]!.frames as unknown as Array<Record<string, unknown>>)),
    ).toEqual(["ok", "ok", "ok"]);

    const now = new Date(Date.UTC(2025, 5, 14, 11, 0, 0));
    const list = await listSessions(prisma, sessionListQuery.parse({}), now);
    const row = list.sessions.find((s) => s.key === "claude-code:todowrite_session")!;
    expect(row).toMatchObject({
      source: "claude-code",
      title: "Feature Implementation with Task Management",
      host: "agent-box",
      startedAt: "2025-06-14T10:00:10.000Z",
      lastUpdateAt: "2025-06-14T10:04:00.000Z",
      snapshotCount: 3,
      progress: {
        total: 6,
        completed: 2,
        cancelled: 0,
        byStatus: { completed: 2, in_progress: 1, pending: 3 },
      },
      inProgressCount: 1,
    });
    expect(row.current).toMatchObject({
      content: "Add comprehensive tests",
      status: "in_progress",
      priority: "medium",
      truncated: false,
    });

    const detail = await getSession(prisma, row.id, now);
    expect(detail.items.map((i) => i.status)).toEqual([
      "completed",
      "completed",
      "in_progress",
      "pending",
      "pending",
      "pending",
    ]);
    expect(detail.timeline.map((s) => [s.seq, s.ts, s.itemCount, s.completed])).toEqual([
      [10, "2025-06-14T10:04:00.000Z", 6, 2],
      [6, "2025-06-14T10:02:00.000Z", 5, 1],
      [3, "2025-06-14T10:00:10.000Z", 5, 0],
    ]);
    const [newest, middle, first] = detail.timeline;
    expect(newest!.added.map((i) => i.content)).toEqual([
      "Conduct security review and penetration testing",
    ]);
    expect(newest!.statusChanges.map((c) => [c.item.content, c.from, c.to])).toEqual([
      ["Implement core functionality", "in_progress", "completed"],
      ["Add comprehensive tests", "pending", "in_progress"],
    ]);
    expect(middle!.statusChanges.map((c) => [c.item.content, c.from, c.to])).toEqual([
      ["Design the feature architecture", "pending", "completed"],
      ["Implement core functionality", "pending", "in_progress"],
    ]);
    expect(first!.added).toHaveLength(5);
    expect(detail.olderSnapshots).toBe(0);

    // Each current item points at its own history.
    const byKey = new Map(detail.histories.map((h) => [h.key, h]));
    expect(detail.items.map((i) => byKey.get(i.historyKey)?.content)).toEqual(
      detail.items.map((i) => i.content),
    );
    const tests = byKey.get(detail.items[2]!.historyKey)!;
    expect(tests).toMatchObject({
      startedMs: Date.UTC(2025, 5, 14, 10, 4, 0),
      currentStatus: "in_progress",
      statusSinceMs: Date.UTC(2025, 5, 14, 10, 4, 0),
    });
    // An imported transcript runs on its own clock: in progress from 10:04 until its last snapshot
    // (also 10:04), not until "now" (11:00) when the file happened to be imported.
    expect(tests.timeInStatusMs.in_progress).toBe(0);
    expect(byKey.get(detail.items[1]!.historyKey)!.timeInStatusMs).toEqual({
      pending: 110_000,
      in_progress: 120_000,
      completed: 0,
    });
  });
});

describe("pushed sessions", () => {
  test("activeForm, other statuses, truncated text; a re-sent seq replaces its snapshot; a malformed snapshot never replaces the last good one", async () => {
    const session = `s-${randomUUID()}`;
    const t0 = Date.UTC(2026, 10, 29, 9, 0, 0);
    const cut =
      "Extract hidden states for 914K samples on 4 GPUs and upload each file to S3 with at most 100 uploads"; // 100 chars, no closing punctuation: looks cut
    expect(cut).toHaveLength(100);
    const snap = (seq: number, ts: number, items: unknown[]) => ({
      type: "session.todos",
      session,
      source: "pushed",
      title: "Qwen3 sweep",
      seq,
      ts,
      items,
    });
    expect(
      await ingest(
        snap(1, t0, [
          {
            content: "Run throughput sweep C=1..100",
            status: "in_progress",
            activeForm: "Running the throughput sweep",
          },
          { content: cut, status: "pending" },
        ]),
        snap(2, t0 + 60_000, [
          { content: "Run throughput sweep C=1..100", status: "completed" },
          { content: cut, status: "failed" },
        ]),
      ),
    ).toEqual(["ok", "ok"]);
    // Re-sent seq 2 with other content replaces it; then a snapshot without a status is refused.
    expect(
      await ingest(
        snap(2, t0 + 60_000, [
          { content: "Run throughput sweep C=1..100", status: "completed" },
          { content: cut, status: "failed" },
          {
            content: "Long-context runs at 30K/60K/100K",
            status: "in_progress",
            activeForm: "Running long-context",
          },
        ]),
        snap(3, t0 + 120_000, [{ content: "broken" }]),
      ),
    ).toEqual(["ok", "invalid_frame"]);

    const id = await sessionId(session);
    const detail = await getSession(prisma, id, new Date(t0 + 45 * 60_000));
    expect(detail.snapshotCount).toBe(2);
    expect(detail.lastUpdateAt).toBe(new Date(t0 + 60_000).toISOString());
    expect(detail.items.map((i) => [i.status, i.truncated, i.activeForm])).toEqual([
      ["completed", false, null],
      ["failed", true, null],
      ["in_progress", false, "Running long-context"],
    ]);
    expect(detail.timeline[0]!.statusChanges.map((c) => [c.from, c.to])).toEqual([
      ["in_progress", "completed"],
      ["pending", "failed"],
    ]);
    expect(detail.timeline[0]!.added.map((i) => i.content)).toEqual([
      "Long-context runs at 30K/60K/100K",
    ]);
    expect(detail.progress).toMatchObject({
      total: 3,
      completed: 1,
      byStatus: { completed: 1, failed: 1, in_progress: 1 },
    });

    const list = await listSessions(prisma, sessionListQuery.parse({}), new Date(t0 + 45 * 60_000));
    const row = list.sessions.find((s) => s.id === id)!;
    expect(row.current).toMatchObject({
      content: "Long-context runs at 30K/60K/100K",
      activeForm: "Running long-context",
    });
  });

  test("sessions are listed most recently updated first; a session a plan created has no list yet", async () => {
    const older = `s-${randomUUID()}`;
    const newer = `s-${randomUUID()}`;
    const bare = `s-${randomUUID()}`;
    const t = Date.UTC(2027, 0, 1);
    await ingest(
      {
        type: "session.todos",
        session: older,
        source: "opencode",
        seq: 0,
        ts: t,
        items: [{ content: "a", status: "pending" }],
      },
      {
        type: "session.todos",
        session: newer,
        source: "claude-code",
        seq: 0,
        ts: t + 1000,
        items: [],
      },
      {
        type: "plan.propose",
        plan: `p-${randomUUID()}`,
        session: bare,
        title: "t",
        items: [{ content: "x" }],
      },
    );
    const list = await listSessions(
      prisma,
      sessionListQuery.parse({ limit: 500 }),
      new Date(t + 5000),
    );
    const keys = list.sessions.map((s) => s.key);
    expect(keys.indexOf(newer)).toBeLessThan(keys.indexOf(older));
    const emptyList = list.sessions.find((s) => s.key === newer)!;
    expect(emptyList.progress).toEqual({
      total: 0,
      completed: 0,
      cancelled: 0,
      fractionDone: null,
      byStatus: {},
    });
    const planOnly = list.sessions.find((s) => s.key === bare)!;
    expect(planOnly).toMatchObject({
      source: "pushed",
      snapshotCount: 0,
      progress: null,
      current: null,
    });
    const detail = await getSession(prisma, planOnly.id);
    expect(detail).toMatchObject({ items: [], timeline: [], histories: [], olderSnapshots: 0 });
  });

  test("an unknown session id is NotFoundError", async () => {
    await expect(getSession(prisma, 2_000_000_000)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("runs started from a session", () => {
  test("run.start with a session key links the run; the session page lists it with its state", async () => {
    const session = `s-${randomUUID()}`;
    const t0 = Date.now();
    expect(
      await ingest({
        type: "session.todos",
        session,
        source: "claude-code",
        seq: 1,
        ts: t0,
        items: [{ content: "Run the sweep", status: "in_progress" }],
      }),
    ).toEqual(["ok"]);
    const run = `r-${randomUUID()}`;
    expect(
      await ingest({
        type: "run.start",
        run,
        name: "sweep from the agent",
        kind: "benchmark",
        session,
      }),
    ).toEqual(["ok"]);
    const detail = await getSession(prisma, await sessionId(session));
    expect(detail.runs.map((r) => [r.name, r.kind, r.state])).toEqual([
      ["sweep from the agent", "benchmark", "running"],
    ]);
  });
});

describe("an ended session", () => {
  test("lists no item in progress: the last list's in-progress items count as left open (issue 25)", async () => {
    const key = `cc-ended-${randomUUID()}`;
    const ts = Date.UTC(2026, 11, 5, 10, 0, 0);
    const items = [
      { content: "Run throughput benchmark", status: "completed" },
      { content: "Summarize results", status: "in_progress", activeForm: "Summarizing" },
      { content: "Upload", status: "pending" },
    ];
    expect(
      await ingest(
        { type: "session.todos", session: key, source: "claude-code", seq: 1, ts, items },
        { type: "session.activity", session: key, source: "claude-code", state: "working", ts },
      ),
    ).toEqual(["ok", "ok"]);
    const now = new Date(ts + 60_000);
    const before = (await listSessions(prisma, sessionListQuery.parse({}), now)).sessions.find(
      (s) => s.key === key,
    )!;
    expect(before).toMatchObject({
      inProgressCount: 1,
      leftOpenCount: 0,
      current: { content: "Summarize results" },
    });

    expect(
      await ingest({
        type: "session.activity",
        session: key,
        source: "claude-code",
        state: "ended",
        ts: ts + 30_000,
        detail: "other",
      }),
    ).toEqual(["ok"]);
    const after = (await listSessions(prisma, sessionListQuery.parse({}), now)).sessions.find(
      (s) => s.key === key,
    )!;
    expect(after).toMatchObject({
      inProgressCount: 0,
      leftOpenCount: 1,
      current: null,
      live: { state: "ended" },
    });
    const detail = await getSession(prisma, after.id, now);
    expect(detail).toMatchObject({ leftOpenCount: 1, current: null });
    // The stored list stays as the agent wrote it.
    expect(detail.items.map((i) => i.status)).toEqual(["completed", "in_progress", "pending"]);
  });
});

describe("session state from evidence", () => {
  test("no event and no heartbeat for 90 s: no signal; a heartbeat naming the session keeps it (a long tool call stays Working); an ended session never goes no signal", async () => {
    const key = `cc-hb-${randomUUID()}`;
    const t0 = Date.UTC(2026, 11, 5, 12, 0, 0);
    expect(
      await ingest({
        type: "session.activity",
        session: key,
        source: "claude-code",
        state: "working",
        ts: t0,
      }),
    ).toEqual(["ok"]);
    const at = async (ms: number) =>
      (await listSessions(prisma, sessionListQuery.parse({}), new Date(t0 + ms))).sessions.find(
        (s) => s.key === key,
      )!.live!;
    expect(await at(60_000)).toMatchObject({ state: "working", noSignal: false });
    expect(await at(91_000)).toMatchObject({ state: "working", noSignal: true });
    // The agent's background heartbeat at +80 s and +110 s: still Working at +150 s.
    expect(
      await ingest(
        { type: "heartbeat", ts: t0 + 80_000, sessions: [key] },
        { type: "heartbeat", ts: t0 + 110_000, sessions: [key] },
      ),
    ).toEqual(["ok", "ok"]);
    expect(await at(150_000)).toMatchObject({
      state: "working",
      noSignal: false,
      lastSignalAt: new Date(t0 + 110_000).toISOString(),
    });
    // The agent was killed: the heartbeats stop; 90 s after the last one it reads no signal.
    expect(await at(201_000)).toMatchObject({ state: "working", noSignal: true });
    // A late heartbeat never moves the signal back.
    expect(
      await ingest({ type: "heartbeat", ts: t0 + 10_000, sessions: [key, "no-such-session"] }),
    ).toEqual(["ok"]);
    expect((await at(150_000)).lastSignalAt).toBe(new Date(t0 + 110_000).toISOString());
    expect(
      await ingest({
        type: "session.activity",
        session: key,
        source: "claude-code",
        state: "ended",
        ts: t0 + 120_000,
      }),
    ).toEqual(["ok"]);
    expect(await at(10 * 3600_000)).toMatchObject({ state: "ended", noSignal: false });
  });
});
