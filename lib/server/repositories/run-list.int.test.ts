import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { runListQuery } from "@/lib/api/runs";
import { ValidationError } from "@/lib/server/errors";
import { ingestHarness } from "@/test/support/ingest";

import { listRuns } from "./run-list";

// The run list's sort orders and repeated-run groups (issue 12), over rows written by the real
// ingest code into a real PostgreSQL. Every test tags its runs so it reads only its own.

const { prisma, ingestAt, close } = await ingestHarness("run-list-host", { prismaMax: 4 });
afterAll(close);

const T0 = 1_790_000_000_000;
const at = (s: number) => T0 + s * 1000;
const NOW = new Date(at(10_000));

interface Seed {
  name: string;
  host: string;
  kind?: string;
  startS: number;
  endS?: number;
  status?: "succeeded" | "failed";
  peak?: number;
  sweep?: string | number;
}

/** Starts (and ends) one run per seed through ingest, all tagged `tag`. */
async function seed(tag: string, seeds: Seed[]): Promise<void> {
  for (const s of seeds) {
    const run = `${tag}-${s.name}-${randomUUID().slice(0, 6)}`;
    const config = s.sweep !== undefined ? { sweep: s.sweep } : {};
    await ingestAt(at(s.startS), {
      type: "run.start",
      run,
      name: s.name,
      kind: s.kind ?? "benchmark",
      host: s.host,
      startedAt: at(s.startS),
      tags: [tag],
      config,
    });
    if (s.peak !== undefined) {
      await ingestAt(at(s.startS + 1), {
        type: "run.benchmark",
        run,
        points: [{ key: "c8", concurrency: 8, completed: 10, outputTokPerS: s.peak }],
      });
    }
    if (s.endS !== undefined)
      await ingestAt(at(s.endS), {
        type: "run.end",
        run,
        status: s.status ?? "succeeded",
        endedAt: at(s.endS),
      });
  }
}

const names = async (query: Record<string, unknown>) =>
  (await listRuns(prisma, runListQuery.parse(query), NOW)).runs.map((r) => r.name);

describe("run list sort", () => {
  const tag = `sort-${randomUUID().slice(0, 8)}`;
  const seeds: Seed[] = [
    { name: "bravo", host: `${tag}-h2`, startS: 100, endS: 400, peak: 900 },
    { name: "alpha", host: `${tag}-h3`, startS: 200, endS: 250, peak: 1500 },
    {
      name: "delta",
      host: `${tag}-h1`,
      kind: "extraction",
      startS: 300,
      endS: 1300,
      status: "failed",
    },
    { name: "charlie", host: `${tag}-h1`, startS: 50, endS: 60, peak: 1200 },
  ];
  const ready = seed(tag, seeds);

  test("each column orders the runs both ways; peak puts runs without one last in both directions", async () => {
    await ready;
    expect(await names({ tag })).toEqual(["delta", "alpha", "bravo", "charlie"]);
    expect(await names({ tag, sort: "startedAt", dir: "asc" })).toEqual([
      "charlie",
      "bravo",
      "alpha",
      "delta",
    ]);
    expect(await names({ tag, sort: "name" })).toEqual(["alpha", "bravo", "charlie", "delta"]);
    expect(await names({ tag, sort: "name", dir: "desc" })).toEqual([
      "delta",
      "charlie",
      "bravo",
      "alpha",
    ]);
    // Durations 300, 50, 1000, 10 s.
    expect(await names({ tag, sort: "duration" })).toEqual(["delta", "bravo", "alpha", "charlie"]);
    expect(await names({ tag, sort: "peak" })).toEqual(["alpha", "charlie", "bravo", "delta"]);
    expect(await names({ tag, sort: "peak", dir: "asc" })).toEqual([
      "bravo",
      "charlie",
      "alpha",
      "delta",
    ]);
    // Text order, ties by id in the same direction (bravo, alpha, charlie were created in that order).
    expect(await names({ tag, sort: "kind" })).toEqual(["bravo", "alpha", "charlie", "delta"]);
    expect(await names({ tag, sort: "status" })).toEqual(["delta", "bravo", "alpha", "charlie"]);
    expect(await names({ tag, sort: "status", dir: "desc" })).toEqual([
      "charlie",
      "alpha",
      "bravo",
      "delta",
    ]);
    // Host: h1 (charlie, delta: ties broken by id ascending = creation order), h2, h3.
    expect(await names({ tag, sort: "host" })).toEqual(["delta", "charlie", "bravo", "alpha"]);
  });

  test("pages through every order by keyset cursor without losing or repeating a run", async () => {
    await ready;
    for (const sort of [
      "startedAt",
      "name",
      "host",
      "duration",
      "peak",
      "kind",
      "status",
    ] as const) {
      for (const dir of ["asc", "desc"] as const) {
        const all = await names({ tag, sort, dir });
        const paged: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 5; i++) {
          const page = await listRuns(
            prisma,
            runListQuery.parse({ tag, sort, dir, limit: 1, cursor }),
            NOW,
          );
          paged.push(...page.runs.map((r) => r.name));
          if (!page.nextCursor) break;
          cursor = page.nextCursor;
        }
        expect(paged, `${sort} ${dir}`).toEqual(all);
      }
    }
  });

  test("a cursor from another order is refused, and a bad sort is a validation failure", async () => {
    await ready;
    const page = await listRuns(prisma, runListQuery.parse({ tag, sort: "name", limit: 1 }), NOW);
    expect(page.nextCursor).not.toBeNull();
    await expect(
      listRuns(
        prisma,
        runListQuery.parse({ tag, sort: "peak", limit: 1, cursor: page.nextCursor }),
        NOW,
      ),
    ).rejects.toThrow(ValidationError);
    expect(runListQuery.safeParse({ sort: "bogus" }).success).toBe(false);
    expect(runListQuery.safeParse({ sweep: "nonsense" }).success).toBe(false);
  });
});

describe("repeated-run groups", () => {
  const tag = `group-${randomUUID().slice(0, 8)}`;
  const sweep = `${tag}-qwen-mtp`;
  const ready = seed(tag, [
    { name: "sweep #1 · mem 0.88", host: `${tag}-a`, startS: 100, endS: 200, peak: 1000, sweep },
    { name: "sweep #2 · mem 0.85", host: `${tag}-a`, startS: 300, endS: 400, peak: 1400, sweep },
    { name: "sweep #3 · mem 0.88", host: `${tag}-b`, startS: 500, sweep },
    { name: "nightly extraction", host: `${tag}-a`, kind: "extraction", startS: 150, endS: 160 },
    {
      name: "nightly extraction",
      host: `${tag}-b`,
      kind: "extraction",
      startS: 250,
      endS: 260,
      status: "failed",
    },
    { name: "nightly extraction", host: `${tag}-a`, kind: "generation", startS: 350 },
    { name: "one-off", host: `${tag}-a`, startS: 600 },
  ]);

  test("runs sharing config.sweep, or kind and name, form one group with count, best and latest over all pages", async () => {
    await ready;
    const page = await listRuns(prisma, runListQuery.parse({ tag }), NOW);
    expect(page.runs.map((r) => r.groupKey)).toContain(`sweep:${sweep}`);
    const groups = new Map(page.groups.map((g) => [g.key, g]));
    expect([...groups.keys()].sort()).toEqual(
      [`name:extraction:nightly extraction`, `sweep:${sweep}`].sort(),
    );
    const s = groups.get(`sweep:${sweep}`)!;
    const id = (name: string) => page.runs.find((r) => r.name === name)!.id;
    expect(s).toMatchObject({
      label: sweep,
      count: 3,
      hostCount: 2,
      bestPeakOutputTokPerS: 1400,
      bestRunId: id("sweep #2 · mem 0.85"),
      latestRunId: id("sweep #3 · mem 0.88"),
      latestState: "stale",
    });
    expect(groups.get("name:extraction:nightly extraction")).toMatchObject({
      label: "nightly extraction",
      count: 2,
      hostCount: 2,
      bestPeakOutputTokPerS: null,
      bestRunId: null,
      latestState: "failed",
    });

    // A page holding one member still summarises the whole group.
    const small = await listRuns(prisma, runListQuery.parse({ tag, limit: 2 }), NOW);
    expect(small.runs.map((r) => r.name)).toEqual(["one-off", "sweep #3 · mem 0.88"]);
    expect(small.groups.map((g) => [g.key, g.count])).toEqual([[`sweep:${sweep}`, 3]]);

    // Filters apply to the groups too: only failed runs leaves no group of two.
    expect(
      (await listRuns(prisma, runListQuery.parse({ tag, status: "failed" }), NOW)).groups,
    ).toEqual([]);
    expect((await listRuns(prisma, runListQuery.parse({ tag, group: "off" }), NOW)).groups).toEqual(
      [],
    );
  });

  test("a sweep id sent as a number and as text is one group (the members are found through the config index either way)", async () => {
    const numTag = `group-num-${randomUUID().slice(0, 8)}`;
    const id = 100_000 + Math.floor(Math.random() * 900_000);
    await seed(numTag, [
      { name: "n1", host: `${numTag}-a`, startS: 100, endS: 200, sweep: id },
      { name: "n2", host: `${numTag}-a`, startS: 300, endS: 400, sweep: id },
      { name: "n3", host: `${numTag}-b`, startS: 500, endS: 600, sweep: String(id) },
    ]);
    const page = await listRuns(prisma, runListQuery.parse({ tag: numTag, limit: 1 }), NOW);
    expect(page.runs.map((r) => r.name)).toEqual(["n3"]);
    expect(page.groups.map((g) => [g.key, g.count, g.hostCount])).toEqual([[`sweep:${id}`, 3, 2]]);
  });

  test("the sweep filter lists exactly one group's runs", async () => {
    await ready;
    expect(await names({ tag, sweep: `sweep:${sweep}`, sort: "name" })).toEqual([
      "sweep #1 · mem 0.88",
      "sweep #2 · mem 0.85",
      "sweep #3 · mem 0.88",
    ]);
    expect(await names({ tag, sweep: "name:extraction:nightly extraction" })).toEqual([
      "nightly extraction",
      "nightly extraction",
    ]);
    expect(
      (await listRuns(prisma, runListQuery.parse({ tag, sweep: `sweep:${sweep}` }), NOW)).groups,
    ).toEqual([]);
  });

  test("group=host groups every matching run by host in SQL and on the page; sweep=host:<h> lists one", async () => {
    await ready;
    const page = await listRuns(prisma, runListQuery.parse({ tag, group: "host" }), NOW);
    expect(new Set(page.runs.map((r) => r.groupKey))).toEqual(
      new Set([`host:${tag}-a`, `host:${tag}-b`]),
    );
    const groups = new Map(page.groups.map((g) => [g.key, g]));
    expect(groups.get(`host:${tag}-a`)).toMatchObject({
      label: `${tag}-a`,
      count: 5,
      hostCount: 1,
      bestPeakOutputTokPerS: 1400,
    });
    expect(groups.get(`host:${tag}-b`)).toMatchObject({ count: 2, hostCount: 1 });
    expect(await names({ tag, sweep: `host:${tag}-b`, sort: "name" })).toEqual([
      "nightly extraction",
      "sweep #3 · mem 0.88",
    ]);
    // No run here has a config.model: under group=model they all share the "model not set" group.
    const byModel = await listRuns(prisma, runListQuery.parse({ tag, group: "model" }), NOW);
    expect(byModel.groups.map((g) => [g.key, g.label, g.count])).toEqual([
      ["unset:model", "model not set", 7],
    ]);
    expect(new Set(byModel.runs.map((r) => r.groupKey))).toEqual(new Set(["unset:model"]));
  });
});

describe("run list total and page numbers", () => {
  const tag = `pages-${randomUUID().slice(0, 8)}`;
  // Five finished runs and three running ones, two of which went quiet long enough to be stale at NOW.
  const ready = (async () => {
    await seed(
      tag,
      [1, 2, 3, 4, 5].map((i) => ({
        name: `done-${i}`,
        host: `${tag}-h`,
        startS: i * 10,
        endS: i * 10 + 5,
      })),
    );
    await seed(tag, [{ name: "live", host: `${tag}-h`, startS: 9_990 }]);
    await seed(tag, [
      { name: "quiet-1", host: `${tag}-h`, startS: 100 },
      { name: "quiet-2", host: `${tag}-h`, startS: 110 },
    ]);
  })();

  test("the total counts every matching run; page n skips the pages before it", async () => {
    await ready;
    const p1 = await listRuns(prisma, runListQuery.parse({ tag, limit: 3 }), NOW);
    expect(p1.total).toBe(8);
    expect(p1.page).toBe(1);
    const p3 = await listRuns(prisma, runListQuery.parse({ tag, limit: 3, page: 3 }), NOW);
    expect(p3.total).toBe(8);
    expect(p3.page).toBe(3);
    const all = (await listRuns(prisma, runListQuery.parse({ tag, limit: 50 }), NOW)).runs.map(
      (r) => r.name,
    );
    expect(p3.runs.map((r) => r.name)).toEqual(all.slice(6));
    expect(p3.nextCursor).toBeNull();
  });

  test("stale and running are counted and paged on the server's clock", async () => {
    await ready;
    const stale = await listRuns(
      prisma,
      runListQuery.parse({ tag, status: "stale", limit: 1, page: 2 }),
      NOW,
    );
    expect(stale.total).toBe(2);
    expect(stale.runs.map((r) => r.name)).toEqual(["quiet-1"]);
    expect(
      (await listRuns(prisma, runListQuery.parse({ tag, status: "running" }), NOW)).total,
    ).toBe(1);
  });

  test("a cursor read has no page number", async () => {
    await ready;
    const first = await listRuns(prisma, runListQuery.parse({ tag, limit: 3 }), NOW);
    const next = await listRuns(
      prisma,
      runListQuery.parse({ tag, limit: 3, cursor: first.nextCursor! }),
      NOW,
    );
    expect(next.page).toBeNull();
    expect(next.total).toBe(8);
  });
});
