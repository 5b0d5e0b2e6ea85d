import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";

import { LIVE_CHANNEL } from "@/lib/protocol/live";
import { NotFoundError } from "@/lib/server/errors";
import { ingestHarness } from "@/test/support/ingest";

import { createBaseline, deleteBaseline, listBaselines, updateBaseline } from "./baselines";

// Baselines against a real database: create, name clashes (any case), update, delete, and the
// `baselines` live notification each write sends.

const { databaseUrl, prisma, close } = await ingestHarness("baseline-host");
afterAll(close);

describe("baselines", () => {
  test("create, duplicate name, update, rename collision, delete; each write notifies topic `baselines`", async () => {
    const listener = new pg.Client({ connectionString: databaseUrl });
    await listener.connect();
    const topics: string[] = [];
    listener.on("notification", (n) =>
      topics.push((JSON.parse(n.payload ?? "{}") as { topic: string }).topic),
    );
    await listener.query(`LISTEN ${LIVE_CHANNEL}`);
    try {
      const name = `dflash-ref-${randomUUID()}`;
      const created = await createBaseline(prisma, {
        name,
        metric: "tau",
        value: 12.4,
        tolerance: 0.2,
        dataset: "humaneval",
      });
      if (!created.ok) throw new Error(created.message);
      expect(created.baseline).toMatchObject({
        name,
        metric: "tau",
        value: 12.4,
        tolerance: 0.2,
        dataset: "humaneval",
      });

      expect(await createBaseline(prisma, { name, metric: "tau", value: 1 })).toEqual({
        ok: false,
        code: "baseline_exists",
        message: `a baseline named ${JSON.stringify(name)} already exists`,
      });

      const updated = await updateBaseline(prisma, created.baseline.id, {
        value: 12.6,
        tolerance: null,
        sourceUrl: "https://example.com/x",
      });
      expect(updated).toMatchObject({
        ok: true,
        baseline: {
          name,
          value: 12.6,
          tolerance: null,
          dataset: "humaneval",
          sourceUrl: "https://example.com/x",
        },
      });

      // Names compare ignoring case: another casing of the name is the same baseline for people.
      expect(
        await createBaseline(prisma, { name: name.toUpperCase(), metric: "tau", value: 1 }),
      ).toEqual({
        ok: false,
        code: "baseline_exists",
        message: `a baseline named ${JSON.stringify(name.toUpperCase())} already exists (as ${JSON.stringify(name)}; names are compared ignoring case)`,
      });

      const other = await createBaseline(prisma, { name: `${name}-b`, metric: "tau", value: 3 });
      if (!other.ok) throw new Error(other.message);
      expect(await updateBaseline(prisma, other.baseline.id, { name })).toMatchObject({
        ok: false,
        code: "baseline_exists",
      });
      expect(
        await updateBaseline(prisma, other.baseline.id, { name: name.toUpperCase() }),
      ).toMatchObject({ ok: false, code: "baseline_exists" });
      // Renaming a baseline to another casing of its own name is fine.
      expect(await updateBaseline(prisma, other.baseline.id, { name: `${name}-B` })).toMatchObject({
        ok: true,
        baseline: { name: `${name}-B` },
      });

      expect(
        (await listBaselines(prisma)).baselines
          .filter((b) => b.name.startsWith(name))
          .map((b) => [b.name, b.value]),
      ).toEqual([
        [name, 12.6],
        [`${name}-B`, 3],
      ]);

      await deleteBaseline(prisma, other.baseline.id);
      await expect(deleteBaseline(prisma, other.baseline.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(updateBaseline(prisma, other.baseline.id, { value: 1 })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      expect((await listBaselines(prisma)).baselines.some((b) => b.id === other.baseline.id)).toBe(
        false,
      );

      // create, update, create, rename, delete committed: five notifications (failed writes send none).
      await expect.poll(() => topics.length).toBe(5);
      expect(new Set(topics)).toEqual(new Set(["baselines"]));
    } finally {
      await listener.end();
    }
  });
});
