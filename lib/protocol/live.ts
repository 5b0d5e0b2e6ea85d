import { z } from "zod";

/**
 * The browser live protocol on `/ws/live`. For most topics the server tells browsers *what
 * changed* (a topic) and react-query refetches. Run topics (`run:<id>`, see
 * {@link isSharedReadTopic}) are read once per coalescing window on the server and pushed to every
 * subscriber as a `snapshot` (on subscribe and on `resync`) followed by `delta`s (lib/protocol/
 * live-patch.ts) that the browser merges into its react-query cache instead of refetching.
 *
 * Topics: `runs` (the run list changed), `run:<id>` (a run, its points or status changed),
 * `hosts` (host heartbeats).
 */

/** Postgres NOTIFY channel that carries {@link LiveChange} JSON between app instances. */
export const LIVE_CHANNEL = "pitwall_live";

/**
 * One change notification; `seq` is the topic's LiveTopic.seq after the change (run topics only).
 * `renotice`: nothing new was committed; readers given a shared answer that lacked an earlier
 * change should refetch (lib/server/live/shared-answers.ts). Browsers get it as any `changed`.
 */
export const liveChange = z.object({
  topic: z.string().min(1).max(200),
  seq: z.number().int().nonnegative().optional(),
  renotice: z.literal(true).optional(),
});
export type LiveChange = z.infer<typeof liveChange>;

/** Browser → server: replace the set of topics this socket wants. */
export const liveSubscribe = z.strictObject({
  type: z.literal("subscribe"),
  topics: z.array(z.string().min(1).max(200)).max(100),
});
export type LiveSubscribe = z.infer<typeof liveSubscribe>;

/** Browser → server: send a fresh `snapshot` of these subscribed shared-read topics (after a sequence gap). */
export const liveResync = z.strictObject({
  type: z.literal("resync"),
  topics: z.array(z.string().min(1).max(200)).max(100),
});
export type LiveResync = z.infer<typeof liveResync>;

/** Every browser → server message. */
export const liveClientMessage = z.discriminatedUnion("type", [liveSubscribe, liveResync]);
export type LiveClientMessage = z.infer<typeof liveClientMessage>;

/** Server → browser messages. `seq` increases per socket so clients can spot gaps. */
export const liveServerMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), seq: z.number() }),
  z.object({ type: z.literal("changed"), topic: z.string(), seq: z.number(), at: z.number() }),
  z.object({ type: z.literal("error"), code: z.string(), message: z.string() }),
  /** The whole value of a shared-read topic as of `seq` (wire form: non-finite numbers as strings). */
  z.object({
    type: z.literal("snapshot"),
    topic: z.string(),
    seq: z.number(),
    data: z.unknown(),
    at: z.number(),
  }),
  /** Turns the value at `base` into the value at `seq`; a browser holding another `base` asks for `resync`. */
  z.object({
    type: z.literal("delta"),
    topic: z.string(),
    base: z.number(),
    seq: z.number(),
    patch: z.unknown(),
    at: z.number(),
  }),
]);
export type LiveServerMessage = z.infer<typeof liveServerMessage>;

/** Close code of a `/ws/live` socket whose session ended (signed out, expired, disabled, token revoked): sign in again. */
export const LIVE_SESSION_ENDED = 4401;

/** True for topics whose value the server reads once and pushes (`run:<id>`); the others are notices. */
export function isSharedReadTopic(topic: string): boolean {
  return /^run:\d+$/.test(topic);
}

/** Topic for one run. */
export const runTopic = (runId: number | string): string => `run:${runId}`;
