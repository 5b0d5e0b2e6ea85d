import { randomUUID } from "node:crypto";
import WebSocket from "ws";

import { SharedTopics } from "@/components/live/shared-topics";
import { reviveNonFinite } from "@/lib/api/client";
import { stringifyJson } from "@/lib/protocol/json";

/** A `/ws/live` client that merges shared-read topics the way the browser does (SharedTopics). */
export interface LiveViewer {
  /** The merged value of a subscribed shared-read topic (undefined before its snapshot). */
  data(topic: string): unknown;
  /** Counts of what arrived: snapshots, deltas, resyncs sent, total bytes received. */
  stats: { snapshots: number; deltas: number; resyncs: number; bytes: number };
  /** Drop (do not merge) the next delta, as if it were lost: the one after it is a gap. */
  loseNextDelta(): void;
  /** Called with the merged value after every snapshot or merged delta. */
  onData?: (topic: string, data: unknown, at: number) => void;
  close(): void;
}

/**
 * Opens `/ws/live` on `serverUrl` with a session cookie, subscribes to `topics` and merges
 * snapshots and deltas (asking for a resync on a gap, like components/live/live-client.ts).
 * @throws Error when the upgrade is refused.
 */
export async function openLiveViewer(
  serverUrl: string,
  cookie: string,
  topics: string[],
): Promise<LiveViewer> {
  const ws = new WebSocket(`${serverUrl.replace("http", "ws")}/ws/live`, {
    headers: { cookie, origin: serverUrl },
  });
  const shared = new SharedTopics();
  const held = new Map<string, unknown>();
  let lose = false;
  const viewer: LiveViewer = {
    data: (t) => held.get(t),
    stats: { snapshots: 0, deltas: 0, resyncs: 0, bytes: 0 },
    loseNextDelta: () => void (lose = true),
    close: () => ws.close(),
  };
  ws.on("message", (raw) => {
    const text = raw.toString();
    viewer.stats.bytes += text.length;
    const msg = JSON.parse(text, reviveNonFinite) as {
      type: string;
      topic: string;
      seq: number;
      base: number;
      data: unknown;
      patch: unknown;
    };
    let result;
    if (msg.type === "snapshot") {
      viewer.stats.snapshots++;
      result = shared.snapshot(msg.topic, msg.seq, msg.data);
    } else if (msg.type === "delta") {
      viewer.stats.deltas++;
      if (lose) {
        lose = false;
        return;
      }
      result = shared.delta(msg.topic, msg.base, msg.seq, msg.patch);
    } else return;
    if (result.kind === "gap") {
      viewer.stats.resyncs++;
      ws.send(JSON.stringify({ type: "resync", topics: [msg.topic] }));
    } else if (result.kind === "data") {
      held.set(msg.topic, result.data);
      viewer.onData?.(msg.topic, result.data, Date.now());
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) =>
      reject(new Error(`live upgrade refused: HTTP ${res.statusCode}`)),
    );
  });
  ws.send(JSON.stringify({ type: "subscribe", topics }));
  return viewer;
}

/** A worker on `/ws/ingest`: sends frames (adding `v` and `id`; NaN/±Infinity as their names) and waits for their acks or for a frame it is sent. */
export interface WorkerSocket {
  /** Sends one frame; resolves with its id once acked. @throws Error when it is rejected or not acked in 10 s. */
  push(frame: Record<string, unknown>): Promise<string>;
  /** Sends one frame without waiting; returns its id. */
  send(frame: Record<string, unknown>): string;
  /** Resolves with the first received frame matching `pred` (within `timeoutMs`, default 10 s). */
  waitFor(
    pred: (f: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Called with every ack's ids and its arrival time (ms). */
  onAck?: (ids: string[], at: number) => void;
  close(): void;
}

/** Opens `/ws/ingest` on `serverUrl` with a worker token. @throws Error when the upgrade is refused. */
export async function openWorkerSocket(serverUrl: string, token: string): Promise<WorkerSocket> {
  const ws = new WebSocket(`${serverUrl.replace("http", "ws")}/ws/ingest`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const received: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  const worker: WorkerSocket = {
    send(frame) {
      const id = randomUUID();
      ws.send(stringifyJson({ v: 1, id, ...frame }));
      return id;
    },
    async push(frame) {
      const id = worker.send(frame);
      const reply = await worker.waitFor(
        (f) =>
          (f.type === "ack" && (f.ids as string[]).includes(id)) ||
          (f.type === "error" && f.id === id),
      );
      if (reply.type === "error") throw new Error(`frame rejected: ${JSON.stringify(reply)}`);
      return id;
    },
    async waitFor(pred, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = received.find(pred);
        if (hit) return hit;
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for a frame; received ${received.length}`);
        await new Promise<void>((r) => {
          waiters.add(r);
          setTimeout(() => (waiters.delete(r), r()), 200);
        });
      }
    },
    close: () => ws.close(),
  };
  ws.on("message", (raw) => {
    const f = JSON.parse(raw.toString()) as Record<string, unknown>;
    if (f.type === "ack") worker.onAck?.(f.ids as string[], Date.now());
    received.push(f);
    // Keep memory flat in long benchmarks: acks are only looked up shortly after arriving.
    if (received.length > 5000) received.splice(0, 2500);
    for (const w of waiters) w();
    waiters.clear();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) =>
      reject(new Error(`ingest upgrade refused: HTTP ${res.statusCode}`)),
    );
  });
  return worker;
}
