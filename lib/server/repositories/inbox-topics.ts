import type pg from "pg";

import { LIVE_CHANNEL } from "@/lib/protocol/live";

/** Live topics of the inbox (shared by the inbox and inbox-rule repositories). */

/** Live topic of the inbox list (any item added, decided or closed). */
export const INBOX_TOPIC = "inbox";
/** Live topic a waiting agent's long-poll listens on for item `id`. */
export const inboxDecisionTopic = (id: number): string => `inbox-decision:${id}`;

/** Announces `topics` to live browsers and waiting long-polls (pg_notify; delivered on commit). */
export async function notifyInboxTopics(
  client: pg.PoolClient | pg.Pool,
  topics: string[],
): Promise<void> {
  for (const topic of topics)
    await client.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, JSON.stringify({ topic })]);
}
