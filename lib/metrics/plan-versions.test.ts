import { describe, expect, test } from "vitest";

import type { PlanSummaryView } from "@/lib/view-models/plans";
import type { SnapshotView } from "@/lib/view-models/sessions";

import { planVersions, sessionTimeline } from "./plan-versions";

const plan = (id: number, over: Partial<PlanSummaryView>): PlanSummaryView => ({
  id,
  key: `s:plan:${id}`,
  title: `Plan ${id}`,
  state: "proposed",
  closedReason: null,
  host: "h",
  proposedAt: "2026-12-01T10:00:00.000Z",
  expiresAt: "2026-12-01T11:00:00.000Z",
  itemCount: 1,
  session: null,
  supersedes: null,
  run: null,
  runStateAtProposal: null,
  basedOnStaleState: false,
  decidedBy: null,
  decidedAt: null,
  decisionComment: null,
  ...over,
});
const snap = (seq: number, ts: string): SnapshotView => ({
  seq,
  ts,
  itemCount: 1,
  completed: 0,
  added: [],
  removed: [],
  statusChanges: [],
  edited: [],
});

describe("plan versions", () => {
  test("a supersedes chain numbers v1, v2, v3 whatever the list order; an unknown predecessor starts at v1", () => {
    const v = planVersions([
      plan(3, { supersedes: "s:plan:2" }),
      plan(1, {}),
      plan(2, { supersedes: "s:plan:1" }),
      plan(9, { supersedes: "elsewhere:plan:1" }),
    ]);
    expect([1, 2, 3, 9].map((id) => [v.get(id)!.version, v.get(id)!.revises])).toEqual([
      [1, null],
      [2, 1],
      [3, 2],
      [1, null],
    ]);
  });

  test("a cycle does not loop", () => {
    const v = planVersions([
      plan(1, { supersedes: "s:plan:2" }),
      plan(2, { supersedes: "s:plan:1" }),
    ]);
    expect(v.size).toBe(2);
  });

  test("the timeline interleaves snapshots, proposals and decisions newest first", () => {
    const plans = [
      plan(1, {
        proposedAt: "2026-12-01T10:01:00.000Z",
        state: "changes_requested",
        decidedAt: "2026-12-01T10:02:00.000Z",
        decidedBy: "ada",
        decisionComment: "warm up first",
      }),
      plan(2, {
        supersedes: "s:plan:1",
        proposedAt: "2026-12-01T10:03:00.000Z",
        state: "approved",
        decidedAt: "2026-12-01T10:03:00.000Z",
        decidedBy: "ada",
      }),
      plan(3, {
        proposedAt: "2026-12-01T10:05:00.000Z",
        state: "expired",
        expiresAt: "2026-12-01T10:06:00.000Z",
      }),
    ];
    const t = sessionTimeline(
      [snap(2, "2026-12-01T10:04:00.000Z"), snap(1, "2026-12-01T10:00:00.000Z")],
      plans,
    );
    expect(
      t.map((e) =>
        e.kind === "snapshot" ? `#${e.snapshot.seq}` : `${e.kind} v${e.version.version}`,
      ),
    ).toEqual([
      "decided v1", // plan 3 expired: its own chain
      "proposed v1",
      "#2",
      "decided v2",
      "proposed v2",
      "decided v1",
      "proposed v1",
      "#1",
    ]);
  });
});
