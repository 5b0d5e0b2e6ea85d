import type { TodoItem } from "../protocol/frames";

/**
 * Todo-list timeline math for agent sessions. An agent's `todowrite` rewrites its WHOLE list each
 * time, so the history of one item (when it appeared, started, finished, how long it sat in each
 * status) is derived by matching the items of consecutive snapshots. Pure functions; times are
 * epoch ms passed in by the caller (no clock reads).
 *
 * Matching (see {@link matchItems}) has to survive three things real lists do: ids that exist only
 * in older agents (opencode < 1.x, Claude Code ≤ 1.0.5x), the same text written again with other
 * whitespace, and content that arrives cut off by a length limit somewhere between the agent and
 * Pitwall ("Run throughput benchmark C=1 to C=1" for "… C=1 to C=100").
 */

/** Statuses after which an item is finished: its time in that status stops counting. */
export const FINISHED_TODO_STATUSES: readonly string[] = ["completed", "cancelled", "failed"];

/**
 * Shortest content (normalised, without a trailing ellipsis) that may match a longer one by
 * prefix as a truncated copy of it. 24 characters: long enough that the common openings of
 * different items ("Add tests for the", "Implement the") do not match each other, short enough to
 * catch cuts at 30/40/50 characters, the smallest limits truncating writers use.
 */
export const MIN_PREFIX_MATCH_CHARS = 24;

/** True for statuses in {@link FINISHED_TODO_STATUSES} (completed, cancelled, failed). */
export function isFinishedStatus(status: string): boolean {
  return FINISHED_TODO_STATUSES.includes(status);
}

/** Content as compared between snapshots: trimmed, every run of whitespace one space. */
export function normaliseContent(content: string): string {
  return content.trim().replace(/\s+/g, " ");
}

const TRAILING_ELLIPSIS = /(?:…|\.\.\.)$/;

/** Normalised content without a trailing "…" or "..." (a truncating writer's marker). */
function comparable(content: string): string {
  return normaliseContent(content).replace(TRAILING_ELLIPSIS, "").trimEnd();
}

/**
 * Length of the shorter content when one is a truncated copy of the other (after
 * {@link normaliseContent} and dropping a trailing ellipsis, the shorter is a prefix of the longer
 * and at least {@link MIN_PREFIX_MATCH_CHARS} long), else 0. Equal contents return their length.
 */
export function truncationOverlap(a: string, b: string): number {
  const x = comparable(a);
  const y = comparable(b);
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  if (short.length < MIN_PREFIX_MATCH_CHARS && short !== long) return 0;
  return long.startsWith(short) ? short.length : 0;
}

/** How a pair of items in two snapshots was recognised as the same item. */
export type TodoMatchReason = "id" | "content" | "prefix";

/** One item present in both snapshots: its index in `prev` and in `next`. */
export interface TodoItemMatch {
  prevIndex: number;
  nextIndex: number;
  by: TodoMatchReason;
}

/**
 * Pairs the items of two consecutive snapshots (each item at most once), in passes from the
 * strongest evidence to the weakest:
 * 1. same `id` (both have one) and same normalised content → `"id"`;
 * 2. same normalised content (whitespace-insensitive, case-sensitive), ids ignored → `"content"`
 *    (agents renumber; the text is what persists);
 * 3. same `id` with different content → `"id"` (an edit);
 * 4. one content a truncated copy of the other ({@link truncationOverlap}) → `"prefix"`, taking for
 *    each `prev` item the candidate with the longest overlap.
 * Duplicates pair up in list order. Returned sorted by `nextIndex`.
 */
export function matchItems(prev: readonly TodoItem[], next: readonly TodoItem[]): TodoItemMatch[] {
  const prevUsed = new Array<boolean>(prev.length).fill(false);
  const nextUsed = new Array<boolean>(next.length).fill(false);
  const matches: TodoItemMatch[] = [];
  const norm = (item: TodoItem) => normaliseContent(item.content);
  const pair = (i: number, j: number, by: TodoMatchReason) => {
    prevUsed[i] = true;
    nextUsed[j] = true;
    matches.push({ prevIndex: i, nextIndex: j, by });
  };
  const pass = (same: (p: TodoItem, n: TodoItem) => boolean, by: TodoMatchReason) => {
    for (let i = 0; i < prev.length; i++) {
      if (prevUsed[i]) continue;
      const p = prev[i] as TodoItem;
      for (let j = 0; j < next.length; j++) {
        if (!nextUsed[j] && same(p, next[j] as TodoItem)) {
          pair(i, j, by);
          break;
        }
      }
    }
  };
  const hasSameId = (p: TodoItem, n: TodoItem) =>
    p.id !== undefined && n.id !== undefined && p.id === n.id;
  pass((p, n) => hasSameId(p, n) && norm(p) === norm(n), "id");
  pass((p, n) => norm(p) === norm(n), "content");
  pass(hasSameId, "id");
  for (let i = 0; i < prev.length; i++) {
    if (prevUsed[i]) continue;
    let best = -1;
    let bestOverlap = 0;
    for (let j = 0; j < next.length; j++) {
      if (nextUsed[j]) continue;
      const overlap = truncationOverlap(
        (prev[i] as TodoItem).content,
        (next[j] as TodoItem).content,
      );
      if (overlap > bestOverlap) {
        best = j;
        bestOverlap = overlap;
      }
    }
    if (best >= 0) pair(i, best, "prefix");
  }
  return matches.sort((a, b) => a.nextIndex - b.nextIndex);
}

/**
 * What changed from one snapshot to the next: items `added` (in `next` order), `removed` (in
 * `prev` order), `statusChanges` (the item as in `next`, old and new status) and `edited` (same item
 * by id with other content; a truncated copy of the same text is not an edit).
 */
export interface TodoDiff {
  added: TodoItem[];
  removed: TodoItem[];
  statusChanges: Array<{ item: TodoItem; from: string; to: string }>;
  edited: Array<{ from: TodoItem; to: TodoItem }>;
}

/** Diffs two snapshots of a todo list (`prev` null: the first snapshot, everything is added); items are paired by {@link matchItems}. */
export function diffSnapshots(
  prev: readonly TodoItem[] | null,
  next: readonly TodoItem[],
): TodoDiff {
  const before = prev ?? [];
  const matches = matchItems(before, next);
  const matchedPrev = new Set(matches.map((m) => m.prevIndex));
  const matchedNext = new Set(matches.map((m) => m.nextIndex));
  const diff: TodoDiff = {
    added: next.filter((_, j) => !matchedNext.has(j)),
    removed: before.filter((_, i) => !matchedPrev.has(i)),
    statusChanges: [],
    edited: [],
  };
  for (const m of matches) {
    const from = before[m.prevIndex] as TodoItem;
    const to = next[m.nextIndex] as TodoItem;
    if (from.status !== to.status)
      diff.statusChanges.push({ item: to, from: from.status, to: to.status });
    if (m.by === "id" && truncationOverlap(from.content, to.content) === 0)
      diff.edited.push({ from, to });
  }
  return diff;
}

/** One todo-list snapshot for {@link itemHistories}: `ts` epoch ms, optional `seq` (source order for equal `ts`). */
export interface TodoSnapshotInput {
  ts: number;
  seq?: number;
  items: readonly TodoItem[];
}

/**
 * The derived life of one item across a session's snapshots (times epoch ms, durations ms).
 * - `key`: `<index of the snapshot where it first appeared>.<its index there>` (in ts/seq order),
 *   stable while earlier snapshots do not change.
 * - `content`: its latest text, except that a truncated copy never replaces the longer text.
 * - `startedMs`: first time it was `in_progress`; `finishedMs`: when it entered its current
 *   finished status (null when not finished now, e.g. reopened).
 * - `finalStatus`: its status in the last snapshot that held it; `currentStatus`: the same, or null
 *   once it is no longer in the latest snapshot (`removedMs` says when it went).
 * - `statusSinceMs`: when it entered `finalStatus`.
 * - `timeInStatusMs`: total time per status visited (0 included); a status left by a later snapshot counts until that
 *   snapshot; the last status counts until `removedMs`, or until `nowMs` — unless it is a finished
 *   status, whose time is not counted (it would grow forever).
 */
export interface TodoItemHistory {
  key: string;
  content: string;
  id: string | null;
  priority: string | null;
  firstSeenMs: number;
  startedMs: number | null;
  finishedMs: number | null;
  finalStatus: string;
  currentStatus: string | null;
  statusSinceMs: number;
  timeInStatusMs: Record<string, number>;
  removedMs: number | null;
}

interface Track {
  history: TodoItemHistory;
  time: Map<string, number>;
}

function addTime(track: Track, status: string, ms: number): void {
  track.time.set(status, (track.time.get(status) ?? 0) + Math.max(0, ms));
}

/**
 * Item histories of a session, in order of first appearance. Snapshots are sorted by `ts`, then
 * `seq` (then input order); consecutive snapshots are paired with {@link matchItems}. An item that
 * disappears and comes back later is a new item (new key). `nowMs` ends the open status of items
 * still in the latest snapshot.
 */
export function itemHistories(
  snapshots: readonly TodoSnapshotInput[],
  nowMs: number,
): TodoItemHistory[] {
  const ordered = snapshots
    .map((s, index) => ({ s, index }))
    .sort((a, b) => a.s.ts - b.s.ts || (a.s.seq ?? 0) - (b.s.seq ?? 0) || a.index - b.index)
    .map((x) => x.s);
  const tracks: Track[] = [];
  let active: Track[] = [];
  let prevItems: readonly TodoItem[] = [];
  ordered.forEach((snap, snapIndex) => {
    const ts = snap.ts;
    const matches = matchItems(prevItems, snap.items);
    const nextActive = new Array<Track | undefined>(snap.items.length);
    const kept = new Set<number>();
    for (const m of matches) {
      const track = active[m.prevIndex] as Track;
      kept.add(m.prevIndex);
      nextActive[m.nextIndex] = track;
      const item = snap.items[m.nextIndex] as TodoItem;
      const h = track.history;
      // A truncated copy of the text seen so far never replaces it; any other text is the latest.
      const longer = comparable(item.content).length >= comparable(h.content).length;
      if (longer || truncationOverlap(h.content, item.content) === 0) h.content = item.content;
      if (item.id !== undefined) h.id = item.id;
      if (item.priority !== undefined) h.priority = item.priority;
      if (item.status !== h.finalStatus) {
        addTime(track, h.finalStatus, ts - h.statusSinceMs);
        addTime(track, item.status, 0); // every status visited shows, finished ones with 0
        h.finalStatus = item.status;
        h.currentStatus = item.status;
        h.statusSinceMs = ts;
        if (item.status === "in_progress" && h.startedMs === null) h.startedMs = ts;
        h.finishedMs = isFinishedStatus(item.status) ? ts : null;
      }
    }
    active.forEach((track, i) => {
      if (kept.has(i)) return;
      const h = track.history;
      if (!isFinishedStatus(h.finalStatus)) addTime(track, h.finalStatus, ts - h.statusSinceMs);
      h.removedMs = ts;
      h.currentStatus = null;
    });
    snap.items.forEach((item, j) => {
      if (nextActive[j]) return;
      const track: Track = {
        history: {
          key: `${snapIndex}.${j}`,
          content: item.content,
          id: item.id ?? null,
          priority: item.priority ?? null,
          firstSeenMs: ts,
          startedMs: item.status === "in_progress" ? ts : null,
          finishedMs: isFinishedStatus(item.status) ? ts : null,
          finalStatus: item.status,
          currentStatus: item.status,
          statusSinceMs: ts,
          timeInStatusMs: {},
          removedMs: null,
        },
        time: new Map([[item.status, 0]]),
      };
      tracks.push(track);
      nextActive[j] = track;
    });
    active = nextActive as Track[];
    prevItems = snap.items;
  });
  for (const track of active) {
    const h = track.history;
    if (!isFinishedStatus(h.finalStatus)) addTime(track, h.finalStatus, nowMs - h.statusSinceMs);
  }
  // fromEntries defines own properties, so a status spelled "__proto__" stays a plain key.
  for (const track of tracks) track.history.timeInStatusMs = Object.fromEntries(track.time);
  return tracks.map((t) => t.history);
}

/** An item {@link stuckItems} flags: its history and how long it has been `in_progress` (ms). */
export interface StuckTodo {
  history: TodoItemHistory;
  inProgressMs: number;
}

/** Items currently `in_progress` for more than `thresholdMs` at `nowMs` (epoch ms), longest first. */
export function stuckItems(
  histories: readonly TodoItemHistory[],
  nowMs: number,
  thresholdMs: number,
): StuckTodo[] {
  return histories
    .filter((h) => h.currentStatus === "in_progress" && nowMs - h.statusSinceMs > thresholdMs)
    .map((history) => ({ history, inProgressMs: nowMs - history.statusSinceMs }))
    .sort((a, b) => b.inProgressMs - a.inProgressMs);
}

/**
 * Lengths at which writers commonly cut text: round decimal limits (30…2000) and powers of two
 * and their byte-limit neighbours (64, 128, 255, 256, 512, 1024, 2048).
 */
export const TYPICAL_TRUNCATION_LENGTHS: readonly number[] = [
  30, 32, 40, 50, 60, 64, 70, 80, 100, 120, 128, 140, 150, 160, 200, 250, 255, 256, 300, 400, 500,
  512, 1000, 1024, 2000, 2048,
];

/** Without a "…" marker, only cuts at this length or longer are recognised. */
const MIN_UNMARKED_CUT = 100;

/** Characters that end a complete phrase: after one of these, text does not look cut. */
const PHRASE_END = /[.!?)\]}"'`»”’]$/u;
const ELLIPSIS_END = /(…|\.\.\.)$/u;

/**
 * Heuristic: does this content look cut off by a length limit? True when its length — in UTF-16
 * units (JS `slice`), code points (Python slicing) or UTF-8 bytes — is exactly one of
 * {@link TYPICAL_TRUNCATION_LENGTHS} and it either
 * - ends without closing punctuation (mid-word, after a space, comma, hyphen…) at a limit of 100
 *   or more, or
 * - ends with "…"/"..." (a cut marker), also when the marker was added after cutting at such a
 *   length (`slice(0, 100) + "…"`).
 * Todo items rarely end with a full stop, so "ends mid-word" alone would flag most of them; the
 * exact length is what separates a cut from a short item. The shared fixtures hold no truncated
 * item (opencode's `metadata.truncated` is false there), so the lengths are the limits such
 * writers use rather than values read from data. A false positive only adds a UI hint.
 */
export function isProbablyTruncated(content: string): boolean {
  const ellipsis = ELLIPSIS_END.exec(content);
  const lengths = (s: string) => [s.length, [...s].length, new TextEncoder().encode(s).length];
  const atLimit = (s: string) => lengths(s).some((n) => TYPICAL_TRUNCATION_LENGTHS.includes(n));
  if (ellipsis) {
    const body = content.slice(0, content.length - (ellipsis[1] as string).length);
    return body.trim().length > 0 && (atLimit(content) || atLimit(body));
  }
  // Without a cut marker, short limits (30, 32, 50…) match ordinary items far too often
  // ("Upload the best checkpoint to S3" is 32 characters): only long limits count.
  const atLongLimit = lengths(content).some(
    (n) => n >= MIN_UNMARKED_CUT && TYPICAL_TRUNCATION_LENGTHS.includes(n),
  );
  return atLongLimit && content.trim().length > 0 && !PHRASE_END.test(content);
}

/**
 * Counts of one snapshot: `total` items, `completed`, `cancelled`, `byStatus` (every status
 * spelled as written), the `inProgress` items in list order, and `fractionDone` = completed /
 * (total − cancelled), cancelled items not counting against progress (null when nothing is left
 * to count).
 */
export interface TodoSummary {
  total: number;
  completed: number;
  cancelled: number;
  byStatus: Record<string, number>;
  inProgress: TodoItem[];
  fractionDone: number | null;
}

/** Summarises one snapshot's items (see {@link TodoSummary}). */
export function summarise(items: readonly TodoItem[]): TodoSummary {
  const byStatus = new Map<string, number>();
  for (const item of items) byStatus.set(item.status, (byStatus.get(item.status) ?? 0) + 1);
  const completed = byStatus.get("completed") ?? 0;
  const cancelled = byStatus.get("cancelled") ?? 0;
  const counted = items.length - cancelled;
  return {
    total: items.length,
    completed,
    cancelled,
    byStatus: Object.fromEntries(byStatus),
    inProgress: items.filter((i) => i.status === "in_progress"),
    fractionDone: counted > 0 ? completed / counted : null,
  };
}
