import { LIVE_CHANNEL } from "@/lib/protocol/live";

/** Anything that runs a parameterised query: a `pg` client inside the caller's transaction, or a pool. */
export interface Queryable {
  query(text: string, values: unknown[]): Promise<unknown>;
}

/**
 * Announces changed live topics in one round trip through the `pitwall_publish(text[])` SQL
 * function (migration `live_topic_seq`): run topics get their `LiveTopic.seq` bumped and carry
 * it in the NOTIFY payload, every topic is NOTIFYed on `pitwall_live`. Call it inside the
 * transaction that made the change, so the notice and the seq are visible at its commit and not
 * before. Duplicate topics are announced once.
 */
export async function publishTopics(client: Queryable, topics: Iterable<string>): Promise<void> {
  const list = [...new Set(topics)];
  if (list.length) await client.query("SELECT pitwall_publish($1::text[])", [list]);
}

/**
 * Announces each of `topics` on `pitwall_live` with its own `pg_notify` (in order, duplicates
 * included; no LiveTopic.seq bump: for topics that are not runs', such as the inbox, plans and
 * the waiting agents' decision topics). Inside a transaction the notices are delivered at commit.
 */
export async function notifyTopics(client: Queryable, topics: Iterable<string>): Promise<void> {
  for (const topic of topics)
    await client.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, JSON.stringify({ topic })]);
}

/**
 * Announces `topic` on `pitwall_live` as a renotice (`{topic, renotice: true}`): nothing new was
 * committed, but readers given a shared answer that lacked an earlier change should refetch
 * (lib/server/live/shared-answers.ts). Every app instance forwards it to its browsers.
 */
export async function renoticeTopic(client: Queryable, topic: string): Promise<void> {
  await client.query("SELECT pg_notify($1, $2)", [
    LIVE_CHANNEL,
    JSON.stringify({ topic, renotice: true }),
  ]);
}
