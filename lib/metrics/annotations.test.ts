import { describe, expect, test } from "vitest";

import { monotonicAnchors, placeAnnotations, runAnnotations, stepAtTime } from "./annotations";

const T0 = Date.parse("2026-12-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

describe("runAnnotations", () => {
  test("keeps checkpoints with a step, warn/error/coded events and decided plans; drops the rest", () => {
    const out = runAnnotations({
      artifacts: [
        { kind: "checkpoint", step: 400, ts: iso(T0 + 4000), uri: "s3://c/400" },
        { kind: "checkpoint", step: null, ts: iso(T0), uri: "s3://c/x" },
        { kind: "shard", step: 100, ts: iso(T0), uri: "s3://s/1" },
      ],
      events: [
        { ts: iso(T0 + 1000), level: "info", message: "started", code: null },
        { ts: iso(T0 + 2000), level: "warn", message: "loss is NaN", code: null },
        { ts: iso(T0 + 3000), level: "info", message: "alert", code: "alert_rule_3" },
        { ts: iso(T0 + 3500), level: "error", message: "OOM", code: null },
      ],
      plans: [
        { title: "Lower lr", state: "approved", decidedAt: iso(T0 + 5000), decidedBy: "ana@x" },
        { title: "Waiting", state: "proposed", decidedAt: null, decidedBy: null },
        { title: "Bad", state: "rejected", decidedAt: iso(T0 + 6000), decidedBy: null },
      ],
    });
    expect(out.map((a) => [a.kind, a.tone, a.label])).toEqual([
      ["event", "warn", "loss is NaN"],
      ["event", "warn", "alert"],
      ["event", "failed", "OOM"],
      ["checkpoint", "info", "checkpoint 400"],
      ["plan", "info", "plan approved: Lower lr (ana@x)"],
      ["plan", "failed", "plan rejected: Bad"],
    ]);
  });
});

describe("placement by time", () => {
  test("interpolates between anchors and gives null outside them", () => {
    const anchors = [
      { tMs: 0, step: 0 },
      { tMs: 100, step: 1000 },
      { tMs: 200, step: 1500 },
    ];
    expect(stepAtTime(anchors, 50)).toBe(500);
    expect(stepAtTime(anchors, 150)).toBe(1250);
    expect(stepAtTime(anchors, 200)).toBe(1500);
    expect(stepAtTime(anchors, 201)).toBeNull();
    expect(stepAtTime(anchors, -1)).toBeNull();
    expect(stepAtTime([{ tMs: 0, step: 0 }], 0)).toBeNull();
  });

  test("anchors whose step goes back in time are dropped", () => {
    expect(
      monotonicAnchors([
        { tMs: 200, step: 50 },
        { tMs: 0, step: 0 },
        { tMs: 100, step: 100 },
      ]),
    ).toEqual([
      { tMs: 0, step: 0 },
      { tMs: 100, step: 100 },
    ]);
  });

  test("checkpoints sit at their step and serve as anchors for events between them", () => {
    const anns = runAnnotations({
      artifacts: [{ kind: "checkpoint", step: 1000, ts: iso(T0 + 100_000), uri: "s3://c" }],
      events: [
        { ts: iso(T0 + 150_000), level: "warn", message: "slow", code: null },
        { ts: iso(T0 + 999_000), level: "warn", message: "after the last push", code: null },
      ],
      plans: [],
    });
    const placed = placeAnnotations(anns, [
      { tMs: T0, step: 0 },
      { tMs: T0 + 200_000, step: 3000 },
    ]);
    expect(placed.map((p) => [p.label, p.x])).toEqual([
      ["checkpoint 1000", 1000],
      ["slow", 2000],
    ]);
  });
});
