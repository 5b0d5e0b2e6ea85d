import type { PrismaClient } from "@/generated/prisma/client";
import { isoTime, isoTimeOrNull } from "@/lib/iso-time";
import { anchorComments, bodyLines, type ChainVersion } from "@/lib/plans/comment-anchors";
import { InputError, NotFoundError } from "@/lib/server/errors";
import type { PlanCommentsView, PlanCommentView } from "@/lib/view-models/plan-comments";

/**
 * Line comments on plans. A comment is stored once, on the version it was written on; every later
 * version of the plan (following `supersedes`) shows it re-anchored or outdated, computed when read
 * (lib/plans/comment-anchors.ts), so a revision arriving needs no write here and resolving a
 * comment resolves it on every version.
 */

/** Versions followed back through `supersedes` at most (a longer chain starts there). */
const MAX_CHAIN = 50;

/**
 * The revision chain ending at plan `planId`, oldest first (the plans it revises, then itself).
 * @throws NotFoundError when no plan has this id.
 */
export async function planChain(db: PrismaClient, planId: number): Promise<ChainVersion[]> {
  const select = { id: true, key: true, body: true, supersedes: true } as const;
  const last = await db.plan.findUnique({ where: { id: planId }, select });
  if (!last) throw new NotFoundError(`plan ${planId} not found`);
  const chain = [last];
  const seen = new Set([last.key]);
  let prevKey = last.supersedes;
  while (prevKey !== null && !seen.has(prevKey) && chain.length < MAX_CHAIN) {
    const prev = await db.plan.findUnique({ where: { key: prevKey }, select });
    if (!prev) break;
    chain.unshift(prev);
    seen.add(prev.key);
    prevKey = prev.supersedes;
  }
  return chain.map((p) => ({ planId: p.id, body: p.body }));
}

const commentSelect = {
  id: true,
  planId: true,
  line: true,
  lineText: true,
  body: true,
  author: true,
  createdAt: true,
  resolvedAt: true,
  resolvedBy: true,
} as const;

/**
 * The comments shown on plan `planId`: its own and those written on the versions it revises,
 * each re-anchored to this version's lines or outdated; anchored ones by line, then outdated
 * ones, oldest first within each.
 * @throws NotFoundError when no plan has this id.
 */
export async function listPlanComments(
  db: PrismaClient,
  planId: number,
): Promise<PlanCommentsView> {
  const chain = await planChain(db, planId);
  const rows = await db.planComment.findMany({
    where: { planId: { in: chain.map((v) => v.planId) } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: commentSelect,
  });
  const anchors = anchorComments(chain, rows);
  const comments = rows.flatMap((r, i): PlanCommentView[] => {
    const a = anchors[i];
    if (!a) return [];
    return [
      {
        id: r.id,
        line: a.line,
        lineText: r.lineText,
        outdated: a.outdated,
        resolved: r.resolvedAt !== null,
        body: r.body,
        author: r.author,
        createdAt: isoTime(r.createdAt),
        resolvedBy: r.resolvedBy,
        resolvedAt: isoTimeOrNull(r.resolvedAt),
        writtenOn: { planId: r.planId, version: a.writtenOnVersion, line: r.line },
      },
    ];
  });
  // Stable sort keeps creation order within one line.
  comments.sort((x, y) => (x.line ?? Infinity) - (y.line ?? Infinity));
  return { planId, version: chain.length, comments };
}

/**
 * Adds `author`'s comment on 1-based `line` of plan `planId`'s body; returns it as shown there.
 * @throws NotFoundError unknown plan; InputError (400 `invalid_body`) when the plan has no body,
 *   no such line, or the line is blank.
 */
export async function addPlanComment(
  db: PrismaClient,
  planId: number,
  input: { line: number; body: string },
  author: string,
  now: Date = new Date(),
): Promise<PlanCommentView> {
  const plan = await db.plan.findUnique({ where: { id: planId }, select: { body: true } });
  if (!plan) throw new NotFoundError(`plan ${planId} not found`);
  const lines = bodyLines(plan.body);
  if (lines.length === 0)
    throw new InputError("invalid_body", `plan ${planId} has no text to comment on`);
  const lineText = lines[input.line - 1];
  if (lineText === undefined)
    throw new InputError(
      "invalid_body",
      `line: plan ${planId} has ${lines.length} lines; there is no line ${input.line}`,
    );
  if (lineText.trim() === "")
    throw new InputError("invalid_body", `line: line ${input.line} is blank; comment on text`);
  const row = await db.planComment.create({
    data: { planId, line: input.line, lineText, body: input.body, author, createdAt: now },
    select: { id: true },
  });
  return commentOn(db, planId, row.id);
}

/**
 * Marks comment `commentId` resolved by `by` (or open again) and returns it as shown on plan
 * `planId`.
 * @throws NotFoundError unknown plan, or a comment not shown on that plan.
 */
export async function setPlanCommentResolved(
  db: PrismaClient,
  planId: number,
  commentId: number,
  resolved: boolean,
  by: string,
  now: Date = new Date(),
): Promise<PlanCommentView> {
  const chain = await planChain(db, planId);
  const updated = await db.planComment.updateMany({
    where: { id: commentId, planId: { in: chain.map((v) => v.planId) } },
    data: resolved ? { resolvedAt: now, resolvedBy: by } : { resolvedAt: null, resolvedBy: null },
  });
  if (updated.count === 0)
    throw new NotFoundError(
      `comment ${commentId} is not on plan ${planId} or its earlier versions`,
    );
  return commentOn(db, planId, commentId);
}

async function commentOn(db: PrismaClient, planId: number, commentId: number) {
  const view = await listPlanComments(db, planId);
  const c = view.comments.find((x) => x.id === commentId);
  if (!c) throw new NotFoundError(`comment ${commentId} not found`);
  return c;
}
