import type { RunListQuery } from "./paths";

/**
 * react-query keys and the live topics that invalidate them. A `changed` message for a topic
 * invalidates every query whose key starts with {@link queryKeyForTopic}.
 */

/** Key of one page of the run list. */
export const runsQueryKey = (q: RunListQuery) => ["runs", q] as const;

/** Key of one run with its points. */
export const runQueryKey = (id: number) => ["run", id] as const;

/**
 * Key prefix a live topic invalidates, by one rule for every topic: `name` → [name],
 * `name:42` → [name, 42] (`runs`, `run:42`, `hosts`, `sessions`, `session:7`, `plans`, `plan:3`,
 * `events`); null for topics that are not of that shape.
 */
export function queryKeyForTopic(topic: string): readonly unknown[] | null {
  const m = /^([a-z][a-z-]*)(?::(\d+))?$/.exec(topic);
  if (!m) return null;
  return m[2] === undefined ? [m[1]] : [m[1], Number(m[2])];
}
