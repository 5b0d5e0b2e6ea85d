import type { PlanSummaryView } from "@/lib/view-models/plans";
import type { SnapshotView } from "@/lib/view-models/sessions";

/**
 * A session's plan versions and its todo snapshots as one timeline. A plan that `supersedes`
 * another (the agent revised it after changes were requested) is the next version of the same
 * chain: v1 has no predecessor among the session's plans, v(n+1) supersedes vn.
 */

/** One plan with its place in its revision chain. */
export interface PlanVersion {
  plan: PlanSummaryView;
  /** 1 for a first proposal, n+1 for the revision of version n. */
  version: number;
  /** Version number of the plan it revises (null for v1). */
  revises: number | null;
}

/** An entry of the merged timeline: a snapshot, a plan proposed, or a decision taken (or an expiry). */
export type TimelineEntry =
  | { kind: "snapshot"; ts: string; snapshot: SnapshotView }
  | { kind: "proposed"; ts: string; version: PlanVersion }
  | { kind: "decided"; ts: string; version: PlanVersion };

/**
 * Version numbers of a session's plans by plan id, following `supersedes` keys. A plan whose
 * predecessor is not among `plans` (or a cycle) starts at 1.
 */
export function planVersions(plans: readonly PlanSummaryView[]): Map<number, PlanVersion> {
  const byKey = new Map(plans.map((p) => [p.key, p]));
  const out = new Map<number, PlanVersion>();
  const versionOf = (p: PlanSummaryView, seen: Set<string>): number => {
    const known = out.get(p.id);
    if (known) return known.version;
    const prev = p.supersedes ? byKey.get(p.supersedes) : undefined;
    const revises = prev && !seen.has(prev.key) ? versionOf(prev, seen.add(p.key)) : null;
    const v: PlanVersion = { plan: p, version: revises === null ? 1 : revises + 1, revises };
    out.set(p.id, v);
    return v.version;
  };
  for (const p of plans) versionOf(p, new Set());
  return out;
}

/**
 * Snapshots, plan proposals and decisions of one session, newest first. A decision (or an
 * expiry without one) is dated when it happened; at equal times a decision sorts above its
 * proposal and a proposal above a snapshot.
 */
export function sessionTimeline(
  snapshots: readonly SnapshotView[],
  plans: readonly PlanSummaryView[],
): TimelineEntry[] {
  const entries: TimelineEntry[] = snapshots.map((s) => ({
    kind: "snapshot",
    ts: s.ts,
    snapshot: s,
  }));
  for (const v of planVersions(plans).values()) {
    entries.push({ kind: "proposed", ts: v.plan.proposedAt, version: v });
    if (v.plan.decidedAt) entries.push({ kind: "decided", ts: v.plan.decidedAt, version: v });
    else if (v.plan.state === "expired")
      entries.push({ kind: "decided", ts: v.plan.expiresAt, version: v });
  }
  const rank = { decided: 0, proposed: 1, snapshot: 2 } as const;
  return entries
    .map((e, i) => ({ e, i }))
    .sort(
      (a, b) =>
        Date.parse(b.e.ts) - Date.parse(a.e.ts) || rank[a.e.kind] - rank[b.e.kind] || a.i - b.i,
    )
    .map(({ e }) => e);
}
