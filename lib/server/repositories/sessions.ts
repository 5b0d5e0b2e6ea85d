import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { type SessionListQuery } from "@/lib/api/sessions";
import { isoTime } from "@/lib/iso-time";
import { sessionClockMs } from "@/lib/metrics/session-clock";
import {
  diffSnapshots,
  isProbablyTruncated,
  itemHistories,
  matchItems,
  summarise,
  type TodoItemMatch,
  type TodoSnapshotInput,
} from "@/lib/metrics/todos";
import type { TodoItem } from "@/lib/protocol";
import { NotFoundError } from "@/lib/server/errors";
import {
  LIVE_STATE_ORDER,
  type LiveState,
  type SessionDetailView,
  type SessionListView,
  type SessionSource,
  type SessionSummaryView,
  type SnapshotView,
  type TodoItemView,
  type TodoProgressView,
} from "@/lib/view-models/sessions";

import { deriveState } from "./runs";

/**
 * Read models of agent sessions: the list (latest snapshot's progress per session) and one
 * session's current todo list, snapshot timeline with diffs, and derived item histories. The
 * timeline math lives in lib/metrics/todos.ts; this module only loads rows and shapes them.
 */

/** Snapshots a session page loads (the latest ones); older ones are counted, not shown. */
export const MAX_TIMELINE_SNAPSHOTS = 500;

const sessionSelect = {
  id: true,
  key: true,
  source: true,
  title: true,
  startedAt: true,
  lastUpdateAt: true,
  state: true,
  stateAt: true,
  stateDetail: true,
  lastSignalAt: true,
  project: true,
  gitBranch: true,
  host: { select: { name: true } },
} satisfies Prisma.AgentSessionSelect;
type SessionRow = Prisma.AgentSessionGetPayload<{ select: typeof sessionSelect }>;

const SOURCES: readonly string[] = ["opencode", "claude-code", "pushed"];

/** A stored session source as the read models name it (an unknown one reads `pushed`). */
export function sessionSourceOf(v: string): SessionSource {
  return (SOURCES.includes(v) ? v : "pushed") as SessionSource;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/**
 * Items of a stored snapshot (`TodoSnapshot.items`, written from validated `session.todos`
 * frames). Read leniently: an entry without string content and status is skipped, never fatal.
 */
export function storedItems(raw: unknown): TodoItem[] {
  if (!Array.isArray(raw)) return [];
  const items: TodoItem[] = [];
  for (const entry of raw as unknown[]) {
    if (!entry || typeof entry !== "object") continue;
    const e = entry as Record<string, unknown>;
    const content = str(e.content);
    const status = str(e.status);
    if (content === undefined || status === undefined) continue;
    const item: TodoItem = { content, status };
    if (str(e.id) !== undefined) item.id = str(e.id);
    if (str(e.priority) !== undefined) item.priority = str(e.priority);
    if (str(e.activeForm) !== undefined) item.activeForm = str(e.activeForm);
    items.push(item);
  }
  return items;
}

/** A todo item as shown, with the truncation hint. */
export function todoItemView(i: TodoItem): TodoItemView {
  return {
    id: i.id ?? null,
    content: i.content,
    status: i.status,
    priority: i.priority ?? null,
    activeForm: i.activeForm ?? null,
    truncated: isProbablyTruncated(i.content),
  };
}

/** Counts of one snapshot's items. */
export function todoProgress(items: readonly TodoItem[]): TodoProgressView {
  const s = summarise(items);
  return {
    total: s.total,
    completed: s.completed,
    cancelled: s.cancelled,
    fractionDone: s.fractionDone,
    byStatus: s.byStatus,
  };
}

/** The latest snapshot's items of each session (by ts, then seq), one query for all. */
async function latestItems(
  db: PrismaClient,
  ids: readonly number[],
): Promise<Map<number, TodoItem[]>> {
  const map = new Map<number, TodoItem[]>();
  if (ids.length === 0) return map;
  const rows = await db.$queryRaw<Array<{ sessionId: number; items: unknown }>>`
    SELECT DISTINCT ON ("sessionId") "sessionId", items FROM "TodoSnapshot"
    WHERE "sessionId" IN (${Prisma.join(ids)}) ORDER BY "sessionId", ts DESC, seq DESC`;
  for (const r of rows) map.set(r.sessionId, storedItems(r.items));
  return map;
}

async function snapshotCounts(
  db: PrismaClient,
  ids: readonly number[],
): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.todoSnapshot.groupBy({
    by: ["sessionId"],
    where: { sessionId: { in: [...ids] } },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.sessionId, r._count._all]));
}

/** Seconds without any event or heartbeat after which a live (not ended) session shows "no signal". */
export const SESSION_NO_SIGNAL_S = 90;

/**
 * Whether a session that has not ended went quiet: no state change, snapshot or heartbeat within
 * SESSION_NO_SIGNAL_S of `now` (its agent was killed, its machine slept, or the hooks cannot reach Pitwall).
 */
function noSignal(row: SessionRow, now: Date): boolean {
  if (!row.stateAt || row.state === "ended") return false;
  const last = Math.max(
    row.stateAt.getTime(),
    row.lastUpdateAt.getTime(),
    row.lastSignalAt?.getTime() ?? 0,
  );
  return now.getTime() - last > SESSION_NO_SIGNAL_S * 1000;
}

function toSummary(
  row: SessionRow,
  items: readonly TodoItem[] | undefined,
  snapshotCount: number,
  now: Date = new Date(),
): SessionSummaryView {
  // An ended agent works on nothing: its last list's in-progress items were left open.
  const ended = row.state === "ended";
  const open = items?.filter((i) => i.status === "in_progress") ?? [];
  const inProgress = ended ? [] : open;
  return {
    id: row.id,
    key: row.key,
    source: sessionSourceOf(row.source),
    title: row.title,
    host: row.host?.name ?? null,
    startedAt: isoTime(row.startedAt),
    lastUpdateAt: isoTime(row.lastUpdateAt),
    snapshotCount,
    progress: items && snapshotCount > 0 ? todoProgress(items) : null,
    current: inProgress[0] ? todoItemView(inProgress[0]) : null,
    inProgressCount: inProgress.length,
    leftOpenCount: ended ? open.length : 0,
    live:
      row.stateAt && isLiveState(row.state)
        ? {
            state: row.state,
            since: row.stateAt.toISOString(),
            detail: row.stateDetail,
            noSignal: noSignal(row, now),
            lastSignalAt: row.lastSignalAt?.toISOString() ?? null,
          }
        : null,
    project: row.project,
    gitBranch: row.gitBranch,
  };
}

const isLiveState = (v: string | null): v is LiveState =>
  (LIVE_STATE_ORDER as readonly (string | null)[]).includes(v);
/** Sort rank on /sessions: waiting, working, idle, ended, then sessions without live state. */
const liveRank = (s: SessionSummaryView) =>
  s.live ? LIVE_STATE_ORDER.indexOf(s.live.state) : LIVE_STATE_ORDER.length;

/** Summaries of the given sessions by id (unknown ids are absent), e.g. for the sessions plans link to. */
export async function sessionSummaries(
  db: PrismaClient,
  ids: readonly number[],
): Promise<Map<number, SessionSummaryView>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.agentSession.findMany({
    where: { id: { in: unique } },
    select: sessionSelect,
  });
  const [latest, counts] = await Promise.all([latestItems(db, unique), snapshotCounts(db, unique)]);
  return new Map(rows.map((r) => [r.id, toSummary(r, latest.get(r.id), counts.get(r.id) ?? 0)]));
}

/**
 * Sessions with their latest snapshot's progress and live state: waiting for a person first, then
 * working, idle, ended, then sessions without live state; most recently updated first within each.
 * (The `limit` most recently updated sessions are read, then grouped.)
 */
export async function listSessions(
  db: PrismaClient,
  query: SessionListQuery,
  now: Date = new Date(),
): Promise<SessionListView> {
  const rows = await db.agentSession.findMany({
    orderBy: [{ lastUpdateAt: "desc" }, { id: "desc" }],
    take: query.limit,
    select: sessionSelect,
  });
  const ids = rows.map((r) => r.id);
  const [latest, counts] = await Promise.all([latestItems(db, ids), snapshotCounts(db, ids)]);
  const sessions = rows.map((r) => toSummary(r, latest.get(r.id), counts.get(r.id) ?? 0, now));
  // Array.prototype.sort is stable: the recency order holds within each state.
  sessions.sort((a, b) => liveRank(a) - liveRank(b));
  return { asOf: isoTime(now), sessions };
}

/**
 * The `key` itemHistories gives the item at `index` of snapshot `k`: `<snapshot>.<index>` where it
 * first appeared, found by following `matches` back through consecutive snapshots.
 */
function historyKeyOf(matches: readonly TodoItemMatch[][], k: number, index: number): string {
  let snap = k;
  let j = index;
  while (snap > 0) {
    const m = matches[snap]?.find((x) => x.nextIndex === j);
    if (!m) break;
    j = m.prevIndex;
    snap--;
  }
  return `${snap}.${j}`;
}

/**
 * One session: its current list (the latest snapshot), the timeline of its latest
 * {@link MAX_TIMELINE_SNAPSHOTS} snapshots newest first, each diffed against the one before it,
 * and the item histories derived from them (open statuses counted up to the session's clock:
 * `now`, or its latest snapshot for an imported session, lib/metrics/session-clock.ts).
 * @throws NotFoundError when no session has this id.
 */
export async function getSession(
  db: PrismaClient,
  id: number,
  now: Date = new Date(),
): Promise<SessionDetailView> {
  const row = await db.agentSession.findUnique({ where: { id }, select: sessionSelect });
  if (!row) throw new NotFoundError(`session ${id} not found`);
  const [total, newestFirst] = await Promise.all([
    db.todoSnapshot.count({ where: { sessionId: id } }),
    db.todoSnapshot.findMany({
      where: { sessionId: id },
      orderBy: [{ ts: "desc" }, { seq: "desc" }],
      take: MAX_TIMELINE_SNAPSHOTS,
      select: { seq: true, ts: true, items: true },
    }),
  ]);
  const snapshots: TodoSnapshotInput[] = newestFirst
    .reverse()
    .map((s) => ({ seq: s.seq, ts: s.ts.getTime(), items: storedItems(s.items) }));

  const timeline: SnapshotView[] = [];
  // matches[k]: items of snapshot k paired with those of snapshot k-1 (the pairing itemHistories
  // and diffSnapshots use), kept to trace each current item back to its first appearance.
  const matches: TodoItemMatch[][] = [[]];
  let prev: TodoSnapshotInput | null = null;
  for (const snap of snapshots) {
    if (prev) matches.push(matchItems(prev.items, snap.items));
    const diff = diffSnapshots(prev?.items ?? null, snap.items);
    timeline.push({
      seq: snap.seq ?? 0,
      ts: isoTime(new Date(snap.ts)),
      itemCount: snap.items.length,
      completed: snap.items.filter((i) => i.status === "completed").length,
      added: diff.added.map(todoItemView),
      removed: diff.removed.map(todoItemView),
      statusChanges: diff.statusChanges.map((c) => ({
        item: todoItemView(c.item),
        from: c.from,
        to: c.to,
      })),
      edited: diff.edited.map((e) => ({ from: todoItemView(e.from), to: todoItemView(e.to) })),
    });
    prev = snap;
  }
  timeline.reverse();

  const latest = snapshots.at(-1)?.items ?? [];
  const items = latest.map((item, j) => ({
    ...todoItemView(item),
    historyKey: historyKeyOf(matches, snapshots.length - 1, j),
  }));
  // Open statuses are counted up to the session's own clock (its last snapshot when imported).
  const summary = toSummary(row, latest, total, now);
  const histories = itemHistories(snapshots, sessionClockMs(summary, now.getTime())).map((h) => ({
    ...h,
    truncated: isProbablyTruncated(h.content),
  }));
  const runs = await db.run.findMany({
    where: { sessionId: id },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: 50,
    select: {
      id: true,
      name: true,
      kind: true,
      status: true,
      lastPushAt: true,
      stallAfterS: true,
      startedAt: true,
    },
  });
  const unapproved = await db.unapprovedWork.findMany({
    where: { sessionId: id },
    orderBy: [{ at: "asc" }, { id: "asc" }],
    take: 100,
    select: { planId: true, tool: true, detail: true, at: true, plan: { select: { title: true } } },
  });
  return {
    ...summary,
    asOf: isoTime(now),
    items,
    timeline,
    unapprovedWork: unapproved.map((w) => ({
      planId: w.planId,
      planTitle: w.plan.title,
      tool: w.tool,
      detail: w.detail,
      at: isoTime(w.at),
    })),
    olderSnapshots: Math.max(0, total - snapshots.length),
    histories,
    runs: runs.map((r) => ({
      id: r.id,
      name: r.name,
      kind: r.kind,
      state: deriveState(r.status, r.lastPushAt, r.stallAfterS, now),
      startedAt: isoTime(r.startedAt),
    })),
  };
}
