import { formatDuration } from "@/lib/format";

/**
 * Repeated events folded into one line for glancing screens (the wall, run and pipeline event
 * lists): "9× over 4m 35s" beside "gpu1: upload of sample-0001234.safetensors failed: 503
 * SlowDown; retrying" instead of nine lines. The one place that decides what a repeat is and how
 * it reads ({@link groupEvents}, {@link repeatLabel}). Pure; times are ISO 8601 strings, events
 * come newest first.
 */

/** The fields grouping looks at. */
export interface GroupableEvent {
  id: string;
  ts: string;
  level: string;
  message: string;
  code: string | null;
  runId?: number;
}

/** One shown line: the newest event of a run of repeats, how many it stands for and the time they span. */
export interface EventGroup<E extends GroupableEvent> {
  /** The newest event of the group (its message is the one shown). */
  latest: E;
  count: number;
  /** Time of the oldest event in the group (equals `latest.ts` for a single event). */
  firstTs: string;
}

/** Events further apart than this (from the group's newest) start a new group. */
export const EVENT_GROUP_WINDOW_MS = 10 * 60 * 1000;

/**
 * What makes two messages "the same": numbers that are not part of a word are masked (sample
 * numbers, latencies, counts), while names like `gpu1` or `w0` keep their digits, so repeats on
 * different workers stay apart.
 */
export function messageSignature(message: string): string {
  return message.replace(/(?<![A-Za-z])\d+(?:[.,]\d+)*/g, "#");
}

/**
 * Folds events (newest first) into groups of the same run, level, alert code and
 * {@link messageSignature}, each spanning at most `windowMs` from its newest event. Order of first
 * appearance is kept, so the list stays newest first.
 */
export function groupEvents<E extends GroupableEvent>(
  events: readonly E[],
  windowMs = EVENT_GROUP_WINDOW_MS,
): Array<EventGroup<E>> {
  const groups: Array<EventGroup<E>> = [];
  const open = new Map<string, EventGroup<E>>();
  for (const e of events) {
    const key = JSON.stringify([e.runId ?? null, e.level, e.code, messageSignature(e.message)]);
    const g = open.get(key);
    const t = Date.parse(e.ts);
    if (g && Date.parse(g.latest.ts) - t <= windowMs) {
      g.count++;
      g.firstTs = e.ts;
      continue;
    }
    const fresh = { latest: e, count: 1, firstTs: e.ts };
    groups.push(fresh);
    open.set(key, fresh);
  }
  return groups;
}

/** Every event its own group (a list shown ungrouped), same shape as {@link groupEvents}. */
export function singleEventGroups<E extends GroupableEvent>(
  events: readonly E[],
): Array<EventGroup<E>> {
  return events.map((e) => ({ latest: e, count: 1, firstTs: e.ts }));
}

/**
 * The text shown beside a group's message: `9× over 4m 35s` (count, then the time from its oldest
 * to its newest event, lib/format.ts `formatDuration`); null for a single event.
 */
export function repeatLabel(group: EventGroup<GroupableEvent>): string | null {
  if (group.count <= 1) return null;
  return `${group.count}× over ${formatDuration(Math.max(0, Date.parse(group.latest.ts) - Date.parse(group.firstTs)) / 1000)}`;
}
