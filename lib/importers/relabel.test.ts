import { describe, expect, test } from "vitest";
import { importBenchmarkFiles } from "./index";
import { planRelabel, type StoredRunLabels } from "./relabel";
import { fixture, onlyRun, pointsOf } from "./testing";

const FILE = fixture("sglang-bench-serving", "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl");

function storedOf(frames: ReturnType<typeof onlyRun>["frames"], over: Partial<StoredRunLabels> = {}): StoredRunLabels {
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

describe("planRelabel", () => {
  const plain = onlyRun(importBenchmarkFiles([FILE], { name: "A" }));
  const long = onlyRun(importBenchmarkFiles([FILE], { name: "B", scenario: "long-context" }));

  test("a new run, or a stored run with the same labels: frames unchanged, nothing to say", () => {
    expect(planRelabel(plain.frames, null)).toEqual({ frames: plain.frames, changes: [], kept: [] });
    expect(planRelabel(plain.frames, storedOf(plain.frames))).toEqual({ frames: plain.frames, changes: [], kept: [] });
  });

  test("other name and scenario: start, changed point frames and end get fresh ids that depend on the stored state", () => {
    const stored = storedOf(plain.frames);
    const plan = planRelabel(long.frames, stored);
    expect(plan.changes).toEqual([`name "A" → "B"`, "7 points throughput → long-context"]);
    expect(plan.frames.map((f) => f.id)).toEqual(long.frames.map((f) => `${f.id}~${plan.frames[0]!.id.split("~")[1]}`));
    expect(plan.frames[0]!.id).toMatch(/~[0-9a-f]{8}$/);
    expect(pointsOf({ ...long, frames: plan.frames })).toEqual(pointsOf(long));
    // another stored state (a later push) → other ids, so A → B → A → B keeps applying
    const later = planRelabel(long.frames, { ...stored, lastPushAt: "2026-12-01T20:05:00.000Z" });
    expect(later.frames[0]!.id).not.toBe(plan.frames[0]!.id);
  });

  test("a person's edit keeps the name: start and end keep their ids, only the scenario change re-ids points", () => {
    const plan = planRelabel(long.frames, storedOf(plain.frames, { name: "Edited", editedAt: "2026-12-01T19:00:00.000Z", editedBy: "bob@example.com" }));
    expect(plan.changes).toEqual(["7 points throughput → long-context"]);
    expect(plan.kept).toEqual([`name "Edited" kept (edited by bob@example.com on the web; a person's edit wins over "B")`]);
    expect(plan.frames[0]!.id).toBe(long.frames[0]!.id);
    expect(plan.frames.at(-1)!.id).toBe(long.frames.at(-1)!.id);
    expect(plan.frames[1]!.id).not.toBe(long.frames[1]!.id);
  });
});
