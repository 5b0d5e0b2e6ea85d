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
