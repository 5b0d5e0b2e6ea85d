import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { runListQuery } from "@/lib/api/runs";
import { ingestHarness } from "@/test/support/ingest";

import { getOverview } from "./overview";
import { listRuns } from "./run-list";
import { getRun } from "./runs";
import { getSession } from "./sessions";

// Figures that must be true (issue 12): a finished run whose end counts disagree is not a plain
// success; an eval run on the overview shows what it scored; an imported session's durations end
// at its own last snapshot. Rows written by the real ingest code into a real PostgreSQL.

const { prisma, ingestAt, runId, close } = await ingestHarness("true-figures-host", {
  prismaMax: 4,
});
afterAll(close);

const T0 = 1_790_000_000_000;
const at = (s: number) => T0 + s * 1000;

describe("run-end reconciliation", () => {
  test("913,931 uploaded of 914,000 done is a mismatch on the run, the run list and the overview; agreeing counts are none", async () => {
    const short = `extract-${randomUUID()}`;
    const exact = `extract-${randomUUID()}`;
    for (const [run, uploaded] of [
      [short, 913_931],
      [exact, 914_000],
    ] as const) {
      await ingestAt(at(0), {
        type: "run.start",
        run,
        name: `reconcile ${run}`,
        kind: "extraction",
        total: 914_000,
        unit: "samples",
        tags: [run],
      });
      await ingestAt(at(10), {
        type: "run.progress",
        run,
        workerId: "gpu0",
        bootId: "b0",
        ts: at(10),
        done: 457_000,
        counters: { "s3.uploaded": uploaded - 457_000, "local.deleted": uploaded - 457_000 },
      });
      await ingestAt(at(10), {
        type: "run.progress",
        run,
        workerId: "gpu1",
        bootId: "b1",
        ts: at(10),
        done: 457_000,
        counters: { "s3.uploaded": 457_000, "local.deleted": 457_000 },
      });
    }
    const shortId = await runId(short);
    // While it runs, no reconciliation: counts catch up at the end.
    expect((await getRun(prisma, shortId, new Date(at(11)))).countMismatches).toEqual([]);

    for (const run of [short, exact])
      await ingestAt(at(20), { type: "run.end", run, status: "succeeded" });
    const detail = await getRun(prisma, shortId, new Date(at(21)));
    expect(detail.state).toBe("succeeded");
    expect(detail.countMismatches.map((m) => m.message)).toEqual([
      "913,931 uploaded of 914,000 done: 69 never uploaded",
    ]);
    expect((await getRun(prisma, await runId(exact), new Date(at(21)))).countMismatches).toEqual(
      [],
    );

    const listed = await listRuns(prisma, runListQuery.parse({ tag: short }), new Date(at(21)));
    // The run list matches part of a host name, in any case.
    expect(
      (
        await listRuns(
          prisma,
          runListQuery.parse({ tag: short, host: "FIGURES-h" }),
          new Date(at(21)),
        )
      ).runs.map((r) => r.id),
    ).toEqual([shortId]);
    expect(
      (
        await listRuns(
          prisma,
          runListQuery.parse({ tag: short, host: "figures-h", hostMatch: "exact" }),
          new Date(at(21)),
        )
      ).runs,
    ).toEqual([]);
    expect(listed.runs[0]?.countMismatches[0]).toMatchObject({
      expected: "done",
      actual: "s3.uploaded",
      gap: 69,
    });
    const overview = await getOverview(prisma, new Date(at(21)));
    expect(
      overview.recent.find((r) => r.id === shortId)?.countMismatches.map((m) => m.gap),
    ).toEqual([69]);
  });
});

describe("eval runs on the overview", () => {
  test("a running eval run reports its scored checkpoints instead of waiting for progress", async () => {
    const run = `eval-${randomUUID()}`;
    const now = Date.now();
    await ingestAt(now - 60_000, { type: "run.start", run, name: "τ eval", kind: "eval" });
    const results = (step: number, ts: number) =>
      ["coding", "math"].map((category, i) => ({
        key: `${step}-${category}`,
        checkpoint: { step, uri: `s3://c/${step}` },
        promptId: `p${i}`,
        category,
        verifySteps: 50,
        acceptedTokens: 400,
        ts,
      }));
    for (const [i, step] of [2000, 4000, 6000].entries()) {
      const ts = now - 50_000 + i * 10_000;
      await ingestAt(ts, { type: "run.eval", run, results: results(step, ts) });
    }
    const id = await runId(run);
    const view = await getOverview(prisma, new Date(now));
    const row = view.active.find((r) => r.id === id);
    expect(row?.progress.done).toBeNull();
    expect(row?.evals).toMatchObject({ checkpoints: 3, results: 6, latestStep: 6000 });
  });
});

describe("session clock", () => {
  test("an imported session's open item is in progress up to its last snapshot, not up to the import months later", async () => {
    const session = `opencode:${randomUUID()}`;
    const items = (status: string) => [{ content: "port the importer", status }];
    await ingestAt(at(0), {
      type: "session.todos",
      session,
      source: "opencode",
      seq: 1,
      ts: at(0),
      items: items("pending"),
    });
    await ingestAt(at(1), {
      type: "session.todos",
      session,
      source: "opencode",
      seq: 2,
      ts: at(60),
      items: items("in_progress"),
    });
    await ingestAt(at(2), {
      type: "session.todos",
      session,
      source: "opencode",
      seq: 3,
      ts: at(660),
      items: [...items("in_progress"), { content: "write docs", status: "pending" }],
    });
    const row = await prisma.agentSession.findUniqueOrThrow({
      where: { key: session },
      select: { id: true },
    });
    const monthsLater = new Date(at(137 * 86_400));
    const view = await getSession(prisma, row.id, monthsLater);
    const h = view.histories.find((x) => x.content === "port the importer")!;
    expect(h.currentStatus).toBe("in_progress");
    // 600 s in progress (60 s → 660 s), not 137 days.
    expect(h.timeInStatusMs.in_progress).toBe(600_000);
  });
});
