import type { RunListQuery } from "./paths";

/**
 * react-query keys and the live topics that invalidate them. A `changed` message for a topic
 * invalidates every query whose key starts with {@link queryKeyForTopic}.
 */

/** Key of one page of the run list. */
export const runsQueryKey = (q: RunListQuery) => ["runs", q] as const;

/** Key of one run with its points. */
export const runQueryKey = (id: number) => ["run", id] as const;

/** Key prefix a live topic invalidates: `runs` → ["runs"], `run:42` → ["run", 42]; null for topics the UI does not query. */
export function queryKeyForTopic(topic: string): readonly unknown[] | null {
  if (topic === "runs") return ["runs"];
  const m = /^run:(\d+)$/.exec(topic);
  return m ? ["run", Number(m[1])] : null;
}
