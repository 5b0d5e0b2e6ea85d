/**
 * Read models of agent sessions (todo-list timelines). Plain JSON shapes: timestamps are ISO 8601
 * strings, except the item histories, which keep the epoch-millisecond fields (`*Ms`) of
 * lib/metrics/todos.ts so the browser can run the same math (stuck items at its own threshold).
 */
import { IMPORTED_SESSION_SOURCES } from "@/lib/metrics/session-clock";
import type { TodoItemHistory } from "@/lib/metrics/todos";
import type { RunState } from "@/lib/view-models";

/** Where a session's todo lists come from: imported opencode / Claude Code files, or pushed live. */
export type SessionSource = "opencode" | "claude-code" | "pushed";

/** One todo item as the agent last wrote it, plus whether its text looks cut off by a length limit. */
export interface TodoItemView {
  id: string | null;
  content: string;
  /** pending | in_progress | completed | cancelled, or any other word the agent used ("failed"). */
  status: string;
  priority: string | null;
  /** Present-continuous label newer agents send with in-progress items ("Running the sweep"). */
  activeForm: string | null;
  /** `isProbablyTruncated(content)`: a hint, never a certainty. */
  truncated: boolean;
}

/** Counts of one snapshot; `fractionDone` = completed / (total − cancelled), null when nothing counts. */
export interface TodoProgressView {
  total: number;
  completed: number;
  cancelled: number;
  fractionDone: number | null;
  /** Items per status, every status spelled as written. */
  byStatus: Record<string, number>;
}

/** One row of the session list. */
export interface SessionSummaryView {
  id: number;
  /** The client key (`claude-code:<sessionId>`, `opencode:<id>`, or what a worker chose). */
  key: string;
  source: SessionSource;
  title: string | null;
  host: string | null;
  /** Time of the earliest snapshot. */
  startedAt: string;
  /** Time of the latest snapshot. */
  lastUpdateAt: string;
  snapshotCount: number;
  /** Counts of the latest snapshot; null before the first one. */
  progress: TodoProgressView | null;
  /** The first in-progress item of the latest snapshot, or null; always null once the session ended. */
  current: TodoItemView | null;
  /** In-progress items in the latest snapshot (agents sometimes have several); 0 once the session ended. */
  inProgressCount: number;
  /**
   * Items still `in_progress` in the last snapshot of an ended session: nobody works on them any
   * more, so they show as "left open", not as running; 0 while the session has not ended.
   */
  leftOpenCount: number;
  /** Live state from the agent hooks (`session.activity`); null when never reported (imported sessions). */
  live: SessionLiveView | null;
  project: string | null;
  gitBranch: string | null;
}

/** Live states in the order /sessions lists them: a session waiting for a person first. */
export const LIVE_STATE_ORDER = ["waiting", "working", "idle", "ended"] as const;
/** A live session state (`session.activity` state). */
export type LiveState = (typeof LIVE_STATE_ORDER)[number];

/** Where a live session stands and since when. */
export interface SessionLiveView {
  state: LiveState;
  /** When it entered the state (ISO 8601). */
  since: string;
  /** What it waits for, or why it changed (e.g. "plan: Benchmark sweep"). */
  detail: string | null;
  /**
   * Not ended, yet no event and no heartbeat for 90 s: its agent is gone or cut off. Shown as
   * "No signal" (amber, like a stale run) instead of the state it last reported.
   */
  noSignal: boolean;
  /** Last heartbeat of its agent process (ISO 8601), or null. */
  lastSignalAt: string | null;
}

/** The session list (`GET /api/sessions`), most recently updated first. */
export interface SessionListView {
  /** Server time of the read. */
  asOf: string;
  sessions: SessionSummaryView[];
}

/** One snapshot in the timeline with what changed since the one before it. */
export interface SnapshotView {
  /** Position in the source (tool-call line, or the worker's counter). */
  seq: number;
  ts: string;
  itemCount: number;
  completed: number;
  /** Everything in the first snapshot counts as added. */
  added: TodoItemView[];
  removed: TodoItemView[];
  /** Same item, other status: the item as it is now, and the status it left. */
  statusChanges: Array<{ item: TodoItemView; from: string; to: string }>;
  /** Same item id, other text. */
  edited: Array<{ from: TodoItemView; to: TodoItemView }>;
}

/**
 * The derived life of one item (see `TodoItemHistory` in lib/metrics/todos.ts; times epoch ms,
 * durations ms). `timeInStatusMs` is counted up to `asOf` of the enclosing view.
 */
export interface TodoItemHistoryView extends TodoItemHistory {
  truncated: boolean;
}

/** An item of the current list, with the `key` of its history in `histories`. */
export interface CurrentTodoItemView extends TodoItemView {
  historyKey: string;
}

/** A session with its current list, timeline and item histories (`GET /api/sessions/:id`). */
export interface SessionDetailView extends SessionSummaryView {
  asOf: string;
  /** The latest snapshot's items, in the agent's order. */
  items: CurrentTodoItemView[];
  /** Snapshots, newest first, each with its diff to the previous one. */
  timeline: SnapshotView[];
  /** Snapshots older than the ones returned (the timeline keeps the latest 500). */
  olderSnapshots: number;
  /** Every item ever listed, in order of first appearance. */
  histories: TodoItemHistoryView[];
  /** Runs this session started (run.start with its key), newest first. */
  runs: Array<{ id: number; name: string; kind: string; state: RunState; startedAt: string }>;
  /**
   * Tools that edit files or run commands which the session ran while one of its plans waited for
   * a decision ("worked without approval"), oldest first (at most 100).
   */
  unapprovedWork: UnapprovedWorkView[];
}

/** One tool run while a plan waited for a decision. */
export interface UnapprovedWorkView {
  planId: number;
  planTitle: string;
  tool: string;
  detail: string | null;
  at: string;
}

/**
 * How a session is named on every page: its title when the agent sent one, else its project
 * folder and git branch ("pitwall · bench-sweep"), else its key (Claude Code's and opencode's
 * session ids are opaque UUID-like strings, so the key comes last).
 */
export function sessionLabel(s: {
  title: string | null;
  key: string;
  project?: string | null;
  gitBranch?: string | null;
}): string {
  if (s.title) return s.title;
  if (s.project) return s.gitBranch ? `${s.project} · ${s.gitBranch}` : s.project;
  return s.key;
}

/**
 * Whether a session can still change, for its page's header: "ended" once its agent reported the
 * end (`session.activity` ended; /sessions says "Ended" too), "imported" for a file read after the
 * fact with no live state (a record of the past), else "live" (the agent may write again).
 */
export type SessionFeed = "live" | "ended" | "imported";

/** The {@link SessionFeed} of a session, from its live state and source. */
export function sessionFeed(s: {
  source: string;
  live: Pick<SessionLiveView, "state"> | null;
}): SessionFeed {
  if (s.live?.state === "ended") return "ended";
  if (s.live === null && IMPORTED_SESSION_SOURCES.includes(s.source)) return "imported";
  return "live";
}

/** What "Ended" and "Imported" mean, for their tooltips on /sessions and the session page. */
export const SESSION_FEED_NOTE: Record<Exclude<SessionFeed, "live">, string> = {
  ended:
    "The agent ended this session: nothing new is expected (the page still updates if it resumes)",
  imported: "Read from a file with pitwall import: a record of the past, not a live session",
};
