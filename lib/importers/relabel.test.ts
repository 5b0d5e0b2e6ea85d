import { describe, expect, test } from "vitest";

import { importBenchmarkFiles } from "./index";
import { planRelabel, relabelResend, type StoredRunLabels } from "./relabel";
import { fixture, onlyRun } from "./testing";

const FILE = fixture(
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
);

function storedOf(
  frames: ReturnType<typeof onlyRun>["frames"],
  over: Partial<StoredRunLabels> = {},
): StoredRunLabels {
  const start = frames[0]!;
  const points = frames.flatMap((f) => (f.type === "run.benchmark" ? f.points : []));
  return {
    name: start.type === "run.start" ? start.name : "",
    editedAt: null,
    editedBy: null,
    lastPushAt: "2026-12-01T20:00:00.000Z",
    pointScenarios: new Map(points.map((p) => [p.key, p.scenario ?? "throughput"])),
    ...over,
  };
}

describe("planRelabel / relabelResend", () => {
  const plain = onlyRun(importBenchmarkFiles([FILE], { name: "A" }));
  const long = onlyRun(importBenchmarkFiles([FILE], { name: "B", scenario: "long-context" }));
  const ids = (frames: readonly { id: string }[]) => new Set(frames.map((f) => f.id));

  test("a new run, or a stored run with the same labels: nothing changes, nothing to resend", () => {
    for (const stored of [null, storedOf(plain.frames)]) {
      const plan = planRelabel(plain.frames, stored);
      expect(plan).toMatchObject({ changes: [], kept: [] });
      expect(relabelResend(plain.frames, plan, ids(plain.frames))).toEqual([]);
    }
  });

  test("other name and scenario: frames the server had already are resent with ids that depend on the stored state", () => {
    const stored = storedOf(plain.frames);
    const plan = planRelabel(long.frames, stored);
    expect(plan.changes).toEqual([`name "A" → "B"`, "7 points throughput → long-context"]);
    // the server had none of these plain ids: nothing to resend
    expect(relabelResend(long.frames, plan, new Set())).toEqual([]);
    // it had all of them (B / long-context was imported before): start, points and end again, fresh ids
    const again = relabelResend(long.frames, plan, ids(long.frames));
    expect(again.map((f) => f.type)).toEqual(["run.start", "run.benchmark", "run.end"]);
    expect(again.map((f) => f.id)).toEqual(long.frames.map((f) => plan.carriers.get(f.id)));
    expect(again[0]!.id).toMatch(/~[0-9a-f]{8}$/);
    // only the start was known: the end follows it
    expect(
      relabelResend(long.frames, plan, new Set([long.frames[0]!.id])).map((f) => f.type),
    ).toEqual(["run.start", "run.end"]);
    // another stored state (a later push) → other ids, so A → B → A → B keeps applying
    const later = planRelabel(long.frames, { ...stored, lastPushAt: "2026-12-01T20:05:00.000Z" });
    expect(later.carriers.get(long.frames[0]!.id)).not.toBe(plan.carriers.get(long.frames[0]!.id));
  });

  test("a person's edit keeps the name: only the scenario change is carried", () => {
    const plan = planRelabel(
      long.frames,
      storedOf(plain.frames, {
        name: "Edited",
        editedAt: "2026-12-01T19:00:00.000Z",
        editedBy: "bob@example.com",
      }),
    );
    expect(plan.changes).toEqual(["7 points throughput → long-context"]);
    expect(plan.kept).toEqual([
      `name "Edited" kept (edited by bob@example.com on the web; a person's edit wins over "B")`,
    ]);
    expect(relabelResend(long.frames, plan, ids(long.frames)).map((f) => f.type)).toEqual([
      "run.benchmark",
    ]);
  });
});
