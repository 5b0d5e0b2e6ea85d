/** Live topics of the inbox (shared by the inbox and inbox-rule repositories). */

/** Live topic of the inbox list (any item added, decided or closed). */
export const INBOX_TOPIC = "inbox";
/** Live topic a waiting agent's long-poll listens on for item `id`. */
export const inboxDecisionTopic = (id: number): string => `inbox-decision:${id}`;
