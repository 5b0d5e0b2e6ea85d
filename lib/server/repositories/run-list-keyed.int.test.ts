import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { runListQuery } from "@/lib/api/runs";
import { ValidationError } from "@/lib/server/errors";
import { settle } from "@/lib/server/metric-store";
import { ingestHarness } from "@/test/support/ingest";

import { listRuns } from "./run-list";

// The run list's keyed sorts (config.<path>, metric.<key>), metric columns and config groups
// (issue 25, "a runs table people can work in"), over rows written by the real ingest code into a
// real PostgreSQL. Every test reads only the runs tagged with this file's tag.

const { prisma, pool, ingest, close } = await ingestHarness("run-list-keyed-host", {
  prismaMax: 4,
});
afterAll(close);

const tag = `keyed-${randomUUID().slice(0, 8)}`;

interface Seed {
  name: string;
  config: Record<string, unknown>;
  /** Metric points by key: [step, value] pairs. */
  metrics?: Record<string, Array<[number, number]>>;
}

const seeds: Seed[] = [
  {
    name: "a",
    config: { tp: 8, lr: "3e-4", spec: { draft: "eagle" } },
    metrics: {
      loss: [
        [1, 2.5],
        [2, 1.25],
      ],
    },
  },
  {
    name: "b",
    config: { tp: 2, spec: { draft: "eagle" } },
    metrics: {
      loss: [
        [1, 0.5],
        [5, Number.NaN],
      ],
    },
  },
  {
    name: "c",
    config: { tp: 16, spec: { draft: "medusa" } },
    metrics: { loss: [[3, 4]], acc: [[3, 0.9]] },
  },
  { name: "d", config: { tp: "auto" } },
  { name: "e", config: { tp: 4, spec: { draft: "eagle" } } },
];

async function seedAll(): Promise<void> {
  for (const s of seeds) {
    const run = `${tag}-${s.name}`;
    await ingest({
      type: "run.start",
      run,
      name: s.name,
      kind: "training",
      tags: [tag],
      config: s.config,
    });
    const points = Object.entries(s.metrics ?? {}).flatMap(([key, pairs]) =>
      pairs.map(([step, value]) => ({ key, step, value })),
    );
    if (points.length > 0) await ingest({ type: "run.metrics", run, points });
  }
}
const ready = seedAll();

const list = (query: Record<string, unknown>) =>
  listRuns(prisma, runListQuery.parse({ tag, ...query }));
const names = async (query: Record<string, unknown>) => (await list(query)).runs.map((r) => r.name);

describe("keyed sorts", () => {
  test("config.<path>: numbers by value, then text, runs without the key last both ways", async () => {
    await ready;
    expect(await names({ sort: "config.tp" })).toEqual(["b", "e", "a", "c", "d"]);
    expect(await names({ sort: "config.tp", dir: "desc" })).toEqual(["c", "a", "e", "b", "d"]);
    // Nested paths; "d" has no spec, so it comes last.
    expect(await names({ sort: "config.spec.draft" })).toEqual(["a", "b", "e", "c", "d"]);
  });

  test("metric.<key>: the latest finite value, highest first by default, runs without one last", async () => {
    await ready;
    // Pending points are read (not yet folded) for the columns; the sort folds them first.
    const before = await list({ metrics: "loss,acc" });
    const byName = new Map(before.runs.map((r) => [r.name, r.metrics]));
    // b's latest loss step is NaN: its latest FINITE value is the step-1 one.
    expect(byName.get("a")).toEqual({ loss: 1.25 });
    expect(byName.get("b")).toEqual({ loss: 0.5 });
    expect(byName.get("c")).toEqual({ loss: 4, acc: 0.9 });
    expect(byName.get("d")).toEqual({});
    // The metric keys offered as columns include those of points still pending.
    expect(before.metricKeys).toEqual(["loss", "acc"]);
    // A metric sort counts them too (the list folds them first).
    expect(await names({ sort: "metric.loss" })).toEqual(["c", "a", "b", "e", "d"]);
    await settle(pool);
    // Runs without a value last, ties by id in the sort's direction (e after d when descending).
    expect(await names({ sort: "metric.loss" })).toEqual(["c", "a", "b", "e", "d"]);
    expect(await names({ sort: "metric.loss", dir: "asc" })).toEqual(["b", "a", "c", "d", "e"]);
    expect(await names({ sort: "metric.acc" })).toEqual(["c", "e", "d", "b", "a"]);
    // The metric keys the page's runs have, most common first.
    expect((await list({})).metricKeys).toEqual(["loss", "acc"]);
    // Without metrics= no run carries a metrics object.
    expect((await list({})).runs.every((r) => r.metrics === undefined)).toBe(true);
  });

  test("keyed sorts page by an offset cursor and by page number without losing or repeating a run", async () => {
    await ready;
    await settle(pool);
    for (const sort of ["config.tp", "config.spec.draft", "metric.loss"]) {
      for (const dir of ["asc", "desc"] as const) {
        const all = await names({ sort, dir });
        const byCursor: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 6; i++) {
          const page = await list({ sort, dir, limit: 2, cursor });
          byCursor.push(...page.runs.map((r) => r.name));
          if (!page.nextCursor) break;
          cursor = page.nextCursor;
        }
        expect(byCursor, `${sort} ${dir} by cursor`).toEqual(all);
        const byPage: string[] = [];
        for (let p = 1; p <= 3; p++)
          byPage.push(...(await names({ sort, dir, limit: 2, page: p })));
        expect(byPage, `${sort} ${dir} by page`).toEqual(all);
      }
    }
    const first = await list({ sort: "config.tp", limit: 2 });
    await expect(list({ sort: "metric.loss", limit: 2, cursor: first.nextCursor })).rejects.toThrow(
      ValidationError,
    );
    expect(runListQuery.safeParse({ sort: "config.a b" }).success).toBe(false);
    expect(
      runListQuery.safeParse({ metrics: Array.from({ length: 9 }, (_, i) => `k${i}`).join(",") })
        .success,
    ).toBe(false);
  });
});

describe("group by a config key", () => {
  test("group=config.<path> groups every matching run by that value in SQL and on the page; its sweep filter lists one group", async () => {
    await ready;
    const page = await list({ group: "config.spec.draft" });
    const keyOf = new Map(page.runs.map((r) => [r.name, r.groupKey]));
    expect(keyOf.get("a")).toBe("config:spec.draft=eagle");
    expect(keyOf.get("c")).toBe("config:spec.draft=medusa");
    expect(keyOf.get("d")).toBe("unset:config.spec.draft");
    // Only groups of two or more: eagle (a, b, e); medusa has one run.
    expect(page.groups.map((g) => [g.key, g.label, g.count])).toEqual([
      ["config:spec.draft=eagle", "spec.draft = eagle", 3],
    ]);
    expect(await names({ sweep: "config:spec.draft=eagle", sort: "name" })).toEqual([
      "a",
      "b",
      "e",
    ]);
    // Runs without the key share one "not set" group (W&B's null group), listed by its own filter.
    const lr = await list({ group: "config.lr" });
    expect(lr.groups.map((g) => [g.key, g.label, g.count])).toEqual([
      ["unset:config.lr", "lr not set", 4],
    ]);
    expect(await names({ sweep: "unset:config.lr", sort: "name" })).toEqual(["b", "c", "d", "e"]);
    // A number groups by its text, as the browser computes it.
    const tp = await list({ group: "config.tp", limit: 1 });
    expect(tp.runs[0]?.groupKey).toMatch(/^config:tp=/);
  });
});
