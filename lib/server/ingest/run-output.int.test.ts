import { afterAll, expect, test } from "vitest";

import { getRunProgress } from "@/lib/server/repositories/pipelines";
import { ingestHarness } from "@/test/support/ingest";

// `run.output` through the real ingest path into PostgreSQL and out through the run page's read
// model: lines append to the run's output tail, the last 200 lines / 64 KiB are kept, run.end's
// tail replaces it, and a bad frame is refused without losing the good frames beside it.

const { prisma, apply, ingest, startRun, close } = await ingestHarness("gen-node-2");
afterAll(close);

const tailOf = async (id: number) =>
  (await getRunProgress(prisma, id, new Date())).command?.outputTail ?? [];

test("lines append live, in order; only the last 200 are kept", async () => {
  const { run, id } = await startRun("generation", "completions");
  expect(await tailOf(id)).toEqual([]);
  await ingest({ type: "run.output", run, lines: ["loading model", ""] });
  await ingest({ type: "run.output", run, lines: ["batch 1 done"] });
  expect(await tailOf(id)).toEqual(["loading model", "", "batch 1 done"]);

  const many = Array.from({ length: 200 }, (_, i) => `step ${i}`);
  await ingest({ type: "run.output", run, lines: many.slice(0, 150) });
  await ingest({ type: "run.output", run, lines: many.slice(150) });
  const tail = await tailOf(id);
  expect(tail).toHaveLength(200);
  expect(tail[0]).toBe("step 0");
  expect(tail.at(-1)).toBe("step 199");

  // run.end's own tail is the final word.
  await ingest({ type: "run.end", run, status: "failed", outputTail: ["Traceback", "boom"] });
  expect(await tailOf(id)).toEqual(["Traceback", "boom"]);
});

test("at most 64 KiB: the oldest characters go first", async () => {
  const { run, id } = await startRun("generation");
  const line = "x".repeat(3999);
  for (let i = 0; i < 3; i++)
    await ingest({ type: "run.output", run, lines: Array.from({ length: 10 }, () => line) });
  const text = (await tailOf(id)).join("\n");
  expect(text.length).toBe(64 * 1024);
  expect(text.endsWith(line)).toBe(true);
});

test("a bad run.output frame is refused with a code; the good frames of the same batch apply", async () => {
  const { run, id } = await startRun("generation");
  await expect(ingest({ type: "run.output", run, lines: ["y".repeat(4001)] })).rejects.toThrow(
    /invalid_frame|too_big|4000/,
  );
  await expect(ingest({ type: "run.output", run, lines: [] })).rejects.toThrow();
  const outcomes = await apply(
    { type: "run.output", run, lines: ["kept 1"] },
    { type: "run.output", run: "no-such-run", lines: ["lost"] },
    { type: "run.output", run, lines: ["kept 2"] },
  );
  expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
  expect(await tailOf(id)).toEqual(["kept 1", "kept 2"]);
});
