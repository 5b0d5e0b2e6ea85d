import { z } from "zod";

/**
 * The browser live protocol on `/ws/live`. The server tells browsers *what changed* (a topic),
 * never the data itself: react-query stays the single source of truth and refetches.
 *
 * Topics: `runs` (the run list changed), `run:<id>` (a run, its points or status changed),
 * `hosts` (host heartbeats).
 */

/** Postgres NOTIFY channel that carries {@link LiveChange} JSON between app instances. */
export const LIVE_CHANNEL = "pitwall_live";

/** One change notification. */
export const liveChange = z.object({ topic: z.string().min(1).max(200) });
export type LiveChange = z.infer<typeof liveChange>;

/** Browser → server: replace the set of topics this socket wants. */
export const liveSubscribe = z.strictObject({
  type: z.literal("subscribe"),
  topics: z.array(z.string().min(1).max(200)).max(100),
});
export type LiveSubscribe = z.infer<typeof liveSubscribe>;

/** Server → browser messages. `seq` increases per socket so clients can spot gaps. */
export const liveServerMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), seq: z.number() }),
  z.object({ type: z.literal("changed"), topic: z.string(), seq: z.number(), at: z.number() }),
  z.object({ type: z.literal("error"), code: z.string(), message: z.string() }),
]);
export type LiveServerMessage = z.infer<typeof liveServerMessage>;

/** Close code of a `/ws/live` socket whose session ended (signed out, expired, disabled, token revoked): sign in again. */
export const LIVE_SESSION_ENDED = 4401;

/** Topic for one run. */
export const runTopic = (runId: number | string): string => `run:${runId}`;
