import WebSocket from "ws";

/** A raw `/ws/ingest` socket for tests: every server frame it received, and a way to wait for one. */
export interface WorkerSocket {
  ws: WebSocket;
  received: Array<Record<string, unknown>>;
  /** Sends a value as JSON text (or a string as is). */
  send(value: unknown): void;
  /** Resolves with the first received frame matching `pred`. @throws after `timeoutMs` (default 10 s) with what arrived. */
  waitFor(
    pred: (f: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Resolves once every id in `ids` was acked or answered with an error. @throws after `timeoutMs` (default 20 s). */
  waitAnswered(ids: string[], timeoutMs?: number): Promise<void>;
  /** The ids acked so far. */
  acked(): Set<string>;
  /** Error frames received so far, by frame id. */
  errors(): Map<string | null, Record<string, unknown>>;
  close(): void;
}

/**
 * Opens a worker socket on `${serverUrl}/ws/ingest` with `token`.
 * @throws Error when the upgrade is refused.
 */
export async function openWorkerSocket(serverUrl: string, token: string): Promise<WorkerSocket> {
  const ws = new WebSocket(`${serverUrl.replace(/^http/, "ws")}/ws/ingest`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const received: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on("message", (data) => {
    received.push(JSON.parse(data.toString()) as Record<string, unknown>);
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const nextMessage = () => new Promise<void>((r) => (waiters.push(r), setTimeout(r, 200)));
  const acked = () =>
    new Set(received.filter((f) => f.type === "ack").flatMap((f) => f.ids as string[]));
  const errors = () =>
    new Map(received.filter((f) => f.type === "error").map((f) => [f.id as string | null, f]));
  return {
    ws,
    received,
    send: (value) => ws.send(typeof value === "string" ? value : JSON.stringify(value)),
    waitFor: async (pred, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = received.find(pred);
        if (hit) return hit;
        if (Date.now() > deadline || ws.readyState === ws.CLOSED)
          throw new Error(
            `timed out (socket ${ws.readyState}); received ${JSON.stringify(received).slice(0, 2000)}`,
          );
        await nextMessage();
      }
    },
    waitAnswered: async (ids, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const a = acked();
        const e = errors();
        const missing = ids.filter((id) => !a.has(id) && !e.has(id));
        if (missing.length === 0) return;
        if (Date.now() > deadline || ws.readyState === ws.CLOSED)
          throw new Error(
            `${missing.length} frame(s) unanswered (socket ${ws.readyState}), e.g. ${missing.slice(0, 3).join(", ")}`,
          );
        await nextMessage();
      }
    },
    acked,
    errors,
    close: () => ws.close(),
  };
}
