import { describe, expect, it } from "vitest";

import type { PlanItemView } from "@/lib/view-models/plans";

import { foldUnchanged } from "./diff-hunks";
import { diffPlanBodies, diffPlanVersionItems } from "./version-diff";

const item = (content: string, priority: PlanItemView["priority"] = null): PlanItemView => ({
  content,
  priority,
});

describe("diffPlanBodies", () => {
  it("marks removed and added lines with their old and new line numbers", () => {
    const lines = diffPlanBodies(
      "# Plan\nwarm up\nsweep C=1..64\nreport\n",
      "# Plan\nwarm up\nsweep C=1..100\nreport\nupload\n",
    );
    expect(lines).toEqual([
      { kind: "same", text: "# Plan", oldLine: 1, newLine: 1 },
      { kind: "same", text: "warm up", oldLine: 2, newLine: 2 },
      { kind: "removed", text: "sweep C=1..64", oldLine: 3, newLine: null },
      { kind: "added", text: "sweep C=1..100", oldLine: null, newLine: 3 },
      { kind: "same", text: "report", oldLine: 4, newLine: 4 },
      { kind: "added", text: "upload", oldLine: null, newLine: 5 },
    ]);
  });

  it("ignores line ends and a missing final newline", () => {
    const lines = diffPlanBodies("a\r\nb", "a\nb\n");
    expect(lines?.every((l) => l.kind === "same")).toBe(true);
    expect(lines).toHaveLength(2);
  });

  it("treats a missing body as empty", () => {
    expect(diffPlanBodies(null, "x\ny")).toEqual([
      { kind: "added", text: "x", oldLine: null, newLine: 1 },
      { kind: "added", text: "y", oldLine: null, newLine: 2 },
    ]);
    expect(diffPlanBodies(null, null)).toEqual([]);
  });
});

describe("diffPlanVersionItems", () => {
  it("pairs a removed and an added item in one run as changed, and keeps the rest", () => {
    const d = diffPlanVersionItems(
      [item("warm up"), item("sweep C=1..64", "high"), item("report")],
      [item("warm up"), item("sweep C=1..100", "high"), item("report"), item("upload to S3")],
    );
    expect(d.changes.map((c) => [c.kind, c.item.content, c.from?.content ?? null])).toEqual([
      ["same", "warm up", "warm up"],
      ["changed", "sweep C=1..100", "sweep C=1..64"],
      ["same", "report", "report"],
      ["added", "upload to S3", null],
    ]);
    expect([d.added, d.removed, d.changed]).toEqual([1, 0, 1]);
  });

  it("reports removed items where they stood and priority-only changes as changed", () => {
    const d = diffPlanVersionItems(
      [item("a"), item("b"), item("c", "low")],
      [item("a"), item("c", "high")],
    );
    expect(d.changes.map((c) => [c.kind, c.item.content])).toEqual([
      ["same", "a"],
      ["removed", "b"],
      ["changed", "c"],
    ]);
    expect(d.changes[2]?.from?.priority).toBe("low");
    expect([d.added, d.removed, d.changed]).toEqual([0, 1, 1]);
  });
});

describe("foldUnchanged", () => {
  it("keeps changes with 3 lines of context and folds the rest", () => {
    const body = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const next = [...body];
    next[9] = "line 10 edited";
    const segs = foldUnchanged(diffPlanBodies(body.join("\n"), next.join("\n")) ?? []);
    expect(
      segs.map((s) => (s.kind === "folded" ? `fold ${s.count}` : `lines ${s.lines.length}`)),
    ).toEqual(["fold 6", "lines 8", "fold 7"]);
  });

  it("shows everything when nothing changed far away", () => {
    const segs = foldUnchanged(diffPlanBodies("a\nb", "a\nc") ?? []);
    expect(segs).toHaveLength(1);
  });
});
