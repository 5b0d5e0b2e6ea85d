import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { type PlanListQuery } from "@/lib/api/plans";
import { isoTime, isoTimeOrNull } from "@/lib/iso-time";
import { runState } from "@/lib/metrics/staleness";
import { NotFoundError } from "@/lib/server/errors";
import type {
  PlanDecisionView,
  PlanDetailView,
  PlanItemChange,
  PlanItemsDiff,
  PlanItemView,
  PlanListView,
  PlanRunView,
  PlanSummaryView,
} from "@/lib/view-models/plans";

import { planState, storedPlanItems } from "./plan-rows";
import { planVersionDiff } from "./plan-version-diff";
import { sessionSourceOf, sessionSummaries } from "./sessions";

export { planState, storedPlanItems };

/**
 * Read models of plans: the list (pending first), one plan with its linked run and session as
 * they are now, and every decision with what it changed against the proposal. Decisions are
 * written by plan-decisions.ts (`decidePlan`), which also delivers them to the proposer.
 */

const runSelect = {
  id: true,
  name: true,
  kind: true,
  status: true,
  lastPushAt: true,
  stallAfterS: true,
  host: { select: { name: true } },
} satisfies Prisma.RunSelect;

const planSelect = {
  id: true,
  key: true,
  title: true,
  status: true,
  proposedAt: true,
  expiresAt: true,
  items: true,
  runStateAtProposal: true,
  supersedes: true,
  closedReason: true,
  host: { select: { name: true } },
  session: { select: { id: true, title: true, key: true, source: true, project: true } },
  run: { select: runSelect },
  decisions: {
    orderBy: { id: "desc" },
    take: 1,
    select: { decidedBy: true, decidedAt: true, comment: true },
  },
} satisfies Prisma.PlanSelect;
type PlanRow = Prisma.PlanGetPayload<{ select: typeof planSelect }>;

/** Where-clause of plans waiting for a decision at `now`: proposed and not past their expiry. */
function pendingWhere(now: Date): Prisma.PlanWhereInput {
  return { status: "proposed", expiresAt: { gt: now } };
}

function runView(run: NonNullable<PlanRow["run"]>, now: Date): PlanRunView {
  return {
    id: run.id,
    name: run.name,
    kind: run.kind,
    host: run.host.name,
    status: run.status,
    state: runState(run.status, run.lastPushAt.getTime(), run.stallAfterS, now.getTime()),
    lastPushAt: isoTime(run.lastPushAt),
    stallAfterS: run.stallAfterS,
  };
}

/**
 * True when a plan proposed against a run's state (`atProposal`, null = no run linked) no longer
 * matches: the run's state now differs, or the run is gone.
 */
export function isBasedOnStaleState(atProposal: string | null, run: PlanRunView | null): boolean {
  if (atProposal === null) return false;
  return run === null || run.state !== atProposal;
}

function toSummary(row: PlanRow, now: Date): PlanSummaryView {
  const run = row.run ? runView(row.run, now) : null;
  const last = row.decisions[0];
  return {
    id: row.id,
    key: row.key,
    title: row.title,
    state: planState(row.status, row.expiresAt, now),
    closedReason:
      row.closedReason === "answered_in_terminal" || row.closedReason === "agent_ended"
        ? row.closedReason
        : null,
    host: row.host.name,
    proposedAt: isoTime(row.proposedAt),
    expiresAt: isoTime(row.expiresAt),
    itemCount: Array.isArray(row.items) ? row.items.length : 0,
    session: row.session && { ...row.session, source: sessionSourceOf(row.session.source) },
    supersedes: row.supersedes,
    run,
    runStateAtProposal: row.runStateAtProposal,
    basedOnStaleState: isBasedOnStaleState(row.runStateAtProposal, run),
    decidedBy: last?.decidedBy ?? null,
    decidedAt: isoTimeOrNull(last?.decidedAt),
    decisionComment: last?.comment ?? null,
  };
}

/** Plans waiting for a decision at `now` (proposed, not past their expiry). */
export async function pendingPlanCount(db: PrismaClient, now: Date = new Date()): Promise<number> {
  return db.plan.count({ where: pendingWhere(now) });
}

/**
 * Plans: those waiting for a decision first (newest first), then the rest (newest proposal
 * first), at most `limit` in all; `pendingCount` counts every pending plan (of the session, with
 * `session`).
 */
export async function listPlans(
  db: PrismaClient,
  query: PlanListQuery,
  now: Date = new Date(),
): Promise<PlanListView> {
  const scope: Prisma.PlanWhereInput = {
    ...(query.session !== undefined ? { sessionId: query.session } : {}),
    ...(query.run !== undefined ? { runId: query.run } : {}),
  };
  const pendingFilter: Prisma.PlanWhereInput = { AND: [scope, pendingWhere(now)] };
  const order: Prisma.PlanOrderByWithRelationInput[] = [{ proposedAt: "desc" }, { id: "desc" }];
  const pendingCount = await db.plan.count({ where: pendingFilter });
  const pending =
    query.limit > 0
      ? await db.plan.findMany({
          where: pendingFilter,
          orderBy: order,
          take: query.limit,
          select: planSelect,
        })
      : [];
  const room = query.limit - pending.length;
  const rest =
    room > 0
      ? await db.plan.findMany({
          where: { AND: [scope, { NOT: pendingWhere(now) }] },
          orderBy: order,
          take: room,
          select: planSelect,
        })
      : [];
  return {
    asOf: isoTime(now),
    pendingCount,
    plans: [...pending, ...rest].map((r) => toSummary(r, now)),
  };
}

/**
 * One plan with its rationale, items, linked session and run as they are now, and every decision
 * (oldest first) with its items diffed against the proposal.
 * @throws NotFoundError when no plan has this id.
 */
export async function getPlan(
  db: PrismaClient,
  id: number,
  now: Date = new Date(),
): Promise<PlanDetailView> {
  const row = await db.plan.findUnique({
    where: { id },
    select: { ...planSelect, rationale: true, body: true },
  });
  if (!row) throw new NotFoundError(`plan ${id} not found`);
  const decisions = await db.planDecision.findMany({
    where: { planId: id },
    orderBy: { id: "asc" },
    select: {
      id: true,
      decision: true,
      items: true,
      comment: true,
      decidedBy: true,
      decidedAt: true,
    },
  });
  const session = row.session
    ? (await sessionSummaries(db, [row.session.id])).get(row.session.id)
    : undefined;
  const items = storedPlanItems(row.items);
  const versionDiff = await planVersionDiff(
    db,
    { supersedes: row.supersedes, body: row.body, items },
    now,
  );
  return {
    ...toSummary(row, now),
    asOf: isoTime(now),
    rationale: row.rationale,
    body: row.body,
    items,
    sessionDetail: session
      ? {
          id: session.id,
          key: session.key,
          title: session.title,
          source: session.source,
          lastUpdateAt: session.lastUpdateAt,
          progress: session.progress,
          current: session.current,
        }
      : null,
    decisions: decisions.map((d): PlanDecisionView => {
      const decided = storedPlanItems(d.items);
      return {
        id: d.id,
        decision: d.decision === "proposed" ? "expired" : d.decision,
        decidedBy: d.decidedBy,
        decidedAt: isoTime(d.decidedAt),
        comment: d.comment,
        items: decided,
        changes: diffPlanItems(items, decided),
      };
    }),
    versionDiff,
  };
}

function normalise(content: string): string {
  return content.trim().replace(/\s+/g, " ");
}

function words(content: string): Set<string> {
  return new Set(
    content
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
  );
}

/**
 * How alike two texts are, 0–1: the larger of the word overlap over the union (Jaccard) and over
 * the shorter text's words (containment), so "Upload to S3" → "Upload to S3; then delete local
 * files" reads as an edit of the same step.
 */
function similarity(a: string, b: string): number {
  const x = words(a);
  const y = words(b);
  if (x.size === 0 || y.size === 0) return 0;
  let common = 0;
  for (const w of x) if (y.has(w)) common++;
  return Math.max(common / (x.size + y.size - common), common / Math.min(x.size, y.size));
}

/** Texts at least this alike ({@link similarity}) pair up as one edited item. */
const EDIT_SIMILARITY = 0.6;

/** Indexes (into `seq`) of one longest strictly increasing subsequence. */
function longestIncreasing(seq: readonly number[]): Set<number> {
  const len = seq.map(() => 1);
  const prev = seq.map(() => -1);
  let best = -1;
  for (let i = 0; i < seq.length; i++) {
    for (let j = 0; j < i; j++) {
      if ((seq[j] as number) < (seq[i] as number) && (len[j] as number) + 1 > (len[i] as number)) {
        len[i] = (len[j] as number) + 1;
        prev[i] = j;
      }
    }
    if (best < 0 || (len[i] as number) > (len[best] as number)) best = i;
  }
  const keep = new Set<number>();
  for (let i = best; i >= 0; i = prev[i] as number) keep.add(i);
  return keep;
}

/**
 * The decided items against the proposed ones. Items pair up by identical text (whitespace
 * ignored), then remaining ones by {@link similarity} ≥ 0.6 as edits (most alike first); anything
 * left is added or removed. A kept item is `moved` when it is not part of the longest run of kept
 * items that stayed in proposal order.
 */
export function diffPlanItems(
  proposed: readonly PlanItemView[],
  decided: readonly PlanItemView[],
): PlanItemsDiff {
  const from = new Array<number>(decided.length).fill(-1);
  const used = new Array<boolean>(proposed.length).fill(false);
  const edited = new Array<boolean>(decided.length).fill(false);
  decided.forEach((d, j) => {
    const i = proposed.findIndex(
      (p, k) => !used[k] && normalise(p.content) === normalise(d.content),
    );
    if (i >= 0) {
      used[i] = true;
      from[j] = i;
    }
  });
  const candidates: Array<{ i: number; j: number; score: number }> = [];
  decided.forEach((d, j) => {
    if (from[j] !== -1) return;
    proposed.forEach((p, i) => {
      if (used[i]) return;
      const score = similarity(p.content, d.content);
      if (score >= EDIT_SIMILARITY) candidates.push({ i, j, score });
    });
  });
  candidates.sort((a, b) => b.score - a.score || Math.abs(a.i - a.j) - Math.abs(b.i - b.j));
  for (const c of candidates) {
    if (used[c.i] || from[c.j] !== -1) continue;
    used[c.i] = true;
    from[c.j] = c.i;
    edited[c.j] = true;
  }
  const keptIdx = decided.map((_, j) => j).filter((j) => from[j] !== -1);
  const inOrder = longestIncreasing(keptIdx.map((j) => from[j] as number));
  const stayed = new Set(keptIdx.filter((_, k) => inOrder.has(k)));

  const items = decided.map((d, j): PlanItemChange => {
    const i = from[j] as number;
    if (i < 0)
      return { item: d, change: "added", fromContent: null, fromPosition: null, moved: false };
    const p = proposed[i] as PlanItemView;
    const change: PlanItemChange = {
      item: d,
      change: edited[j] ? "edited" : "same",
      fromContent: edited[j] ? p.content : null,
      fromPosition: i + 1,
      moved: !stayed.has(j),
    };
    if (p.priority !== d.priority) change.fromPriority = p.priority;
    return change;
  });
  const removed = proposed.flatMap((p, i) => (used[i] ? [] : [{ item: p, position: i + 1 }]));
  const unchanged =
    removed.length === 0 &&
    items.every(
      (c, j) =>
        c.change === "same" && !c.moved && c.fromPriority === undefined && c.fromPosition === j + 1,
    );
  return { items, removed, unchanged };
}
