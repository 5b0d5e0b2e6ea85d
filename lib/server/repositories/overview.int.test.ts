import { afterAll, describe, expect, test } from "vitest";

import { OVERVIEW_PAGE } from "@/lib/api/overview";
import { ingestHarness } from "@/test/support/ingest";
import { seedRunExpectation, seedRunningRuns } from "@/test/support/seed-runs";

import { getOverview } from "./overview";

// The overview stays bounded and correct with 40,000 running runs (seeded by one SQL insert, not
// through ingest): counts over all of them, a capped page, stale then alerting then newest, and
// pages that tile the whole list without overlap.

const { pool, prisma, close } = await ingestHarness("overview-host");
afterAll(close);

const COUNT = 40_000;
const NOW = Date.parse("2026-12-01T12:00:00Z");

describe("overview at 40,000 running runs", () => {
  test("counts, ordering, cap and pagination", async () => {
    await seedRunningRuns(pool, COUNT, NOW, "ov");
    const expected = seedRunExpectation(COUNT);
    const runNumber = (name: string) => Number(name.replace("run ", ""));

    const first = await getOverview(prisma, new Date(NOW));
    expect(first.activeCounts).toEqual({
      total: expected.order.length,
      running: expected.running,
      stale: expected.stale,
      alerting: expected.alerting,
      offset: 0,
      limit: OVERVIEW_PAGE.defaultLimit,
    });
    expect(first.olderStaleCount).toBe(expected.olderStale);
    expect(first.active).toHaveLength(OVERVIEW_PAGE.defaultLimit);
    expect(first.active.map((r) => runNumber(r.name))).toEqual(
      expected.order.slice(0, OVERVIEW_PAGE.defaultLimit),
    );
    expect(first.active.every((r) => r.state === "stale")).toBe(true);

    // The boundary between stale and alerting runs, and between alerting and the rest.
    for (const offset of [
      expected.stale - 3,
      expected.stale + expected.alerting - 40,
      expected.order.length - 7,
    ]) {
      const page = await getOverview(prisma, new Date(NOW), {
        offset,
        limit: OVERVIEW_PAGE.maxLimit,
      });
      const want = expected.order.slice(offset, offset + OVERVIEW_PAGE.maxLimit);
      expect(page.active.map((r) => runNumber(r.name))).toEqual(want);
      expect(page.active.map((r) => r.state)).toEqual(
        want.map((i) => (i % 10 === 0 ? "stale" : "running")),
      );
      expect(page.activeCounts.total).toBe(expected.order.length);
    }
    // Past the end: an empty page, counts still right; the limit is capped.
    const past = await getOverview(prisma, new Date(NOW), { offset: COUNT, limit: 10_000 });
    expect(past.active).toEqual([]);
    expect(past.activeCounts.limit).toBe(OVERVIEW_PAGE.maxLimit);
    expect(past.activeCounts.stale).toBe(expected.stale);
  });
});
