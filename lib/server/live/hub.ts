import pg from "pg";
import type { WebSocket } from "ws";

import {
  isSharedReadTopic,
  LIVE_CHANNEL,
  liveChange,
  liveClientMessage,
  type LiveServerMessage,
} from "@/lib/protocol/live";
import { describeOutage } from "@/lib/server/database/outage";
import { prisma } from "@/lib/server/db";
import type { Logger } from "@/lib/server/logger";
import { telemetry } from "@/lib/server/telemetry";

import { isAuthTopic } from "./auth-events";
import { liveBus } from "./bus";
import { readRunLive } from "./run-live-read";
import { SharedReads, type TopicRead } from "./shared-reads";

/**
 * Notice topics (everything but `run:<id>`): per socket and topic, at most one `changed` per this
 * many ms (trailing edge kept). Each notice makes the browser refetch, so it stays at 250 ms.
 */
const COALESCE_MS = 250;
/** Shared-read topics (`run:<id>`): at most one read per topic per this many ms, for all sockets. */
export const SHARED_READ_WINDOW_MS = 50;
/** A shared-read topic nothing changed for is re-read after this long (clock-derived rates, ETA, stale). */
const SHARED_REFRESH_MS = 30_000;

interface Subscriber {
  ws: WebSocket;
  /** This socket as a sink of shared-read messages. */
  sink: { send(text: string): void };
  topics: Set<string>;
  seq: number;
  lastSentAt: Map<string, number>;
  pending: Map<string, NodeJS.Timeout>;
}

/**
 * Live fan-out to browsers on `/ws/live`.
 *
 * Ingest commits send `pg_notify('pitwall_live', {topic})`; every app instance LISTENs on a
 * dedicated connection and forwards matching topics to its own browser sockets. Going through
 * Postgres (rather than an in-process emitter) is what lets several instances behind a load
 * balancer share one database with no extra broker. Notice topics are coalesced per socket and
 * topic so a worker pushing 1000 frames/s causes a handful of refetches, not 1000. Shared-read
 * topics (`run:<id>`) are read here once per window and pushed as snapshot + deltas to every
 * subscriber (SharedReads), so viewers add no database work.
 */
export class LiveHub {
  private readonly subscribers = new Set<Subscriber>();
  private listener: pg.Client | null = null;
  private closed = false;
  private retryMs = 500;
  /** The LISTEN connection is down (logged once; reconnects are retried quietly until it is back). */
  private down = false;
  private readonly shared: SharedReads;
  private readonly refreshTimer: NodeJS.Timeout;

  /** `read` defaults to the run page's views through the shared Prisma client. */
  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    read: (topic: string, previous: TopicRead | null) => Promise<TopicRead> = (topic, previous) =>
      readRunLive(prisma(), topic, new Date(), previous),
  ) {
    this.shared = new SharedReads({
      read,
      windowMs: SHARED_READ_WINDOW_MS,
      retryMs: 1000,
      now: Date.now,
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
      onError: (topic, err) => this.log.warn({ err, topic }, "shared live read failed; retrying"),
    });
    this.refreshTimer = setInterval(
      () => this.shared.refreshOlderThan(SHARED_REFRESH_MS),
      SHARED_REFRESH_MS / 6,
    );
    this.refreshTimer.unref();
  }

  /**
   * Opens the LISTEN connection; reconnects by itself when it drops. Every error of the client
   * (also of one that failed to connect) is handled: the loss is logged once, with its code.
   * @throws the driver's error when the first connection cannot be made.
   */
  async start(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      connectionTimeoutMillis: 15_000,
    });
    client.on("notification", (msg) => this.onNotification(msg.payload));
    client.on("error", (err) => {
      if (client !== this.listener) return; // a client being given up on: already handled
      this.markDown(err);
      this.reconnectLater();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_CHANNEL}`);
    } catch (err) {
      client.end().catch(() => undefined);
      throw err;
    }
    this.listener = client;
    this.retryMs = 500;
    // After a reconnect notices may have been missed: re-read every shared topic.
    this.shared.changedAll();
    if (this.down) this.log.info("live LISTEN connection is back");
    this.down = false;
  }

  private markDown(err: unknown): void {
    if (this.down) return;
    this.down = true;
    this.log.warn({ err: describeOutage(err) }, "live LISTEN connection lost; reconnecting");
  }

  private reconnectLater(): void {
    const old = this.listener;
    this.listener = null;
    old?.end().catch(() => undefined);
    if (this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
    setTimeout(() => {
      if (!this.closed)
        this.start().catch((err: unknown) => {
          this.markDown(err);
          this.reconnectLater();
        });
    }, delay).unref();
  }

  /** Registers a browser socket; it receives nothing until it subscribes to topics. */
  add(ws: WebSocket): void {
    const sink = { send: (text: string) => ws.readyState === ws.OPEN && ws.send(text) };
    const sub: Subscriber = {
      ws,
      sink,
      topics: new Set(),
      seq: 0,
      lastSentAt: new Map(),
      pending: new Map(),
    };
    this.subscribers.add(sub);
    telemetry().liveSubscribers.set(this.subscribers.size);
    this.send(sub, { type: "hello", seq: sub.seq });
    ws.on("message", (data) => {
      let value: unknown;
      try {
        value = JSON.parse(data.toString());
      } catch {
        this.send(sub, { type: "error", code: "invalid_json", message: "message is not JSON" });
        return;
      }
      const parsed = liveClientMessage.safeParse(value);
      if (!parsed.success) {
        this.send(sub, {
          type: "error",
          code: "invalid_message",
          message: 'expected {"type":"subscribe"|"resync","topics":[...]}',
        });
        return;
      }
      if (parsed.data.type === "resync") {
        for (const t of parsed.data.topics)
          if (isSharedReadTopic(t)) this.shared.resync(t, sub.sink);
        return;
      }
      const next = new Set(parsed.data.topics);
      for (const t of sub.topics)
        if (!next.has(t) && isSharedReadTopic(t)) this.shared.unsubscribe(t, sub.sink);
      for (const t of next)
        if (!sub.topics.has(t) && isSharedReadTopic(t)) this.shared.subscribe(t, sub.sink);
      sub.topics = next;
    });
    ws.on("close", () => {
      for (const t of sub.pending.values()) clearTimeout(t);
      for (const t of sub.topics) if (isSharedReadTopic(t)) this.shared.unsubscribe(t, sub.sink);
      this.subscribers.delete(sub);
      telemetry().liveSubscribers.set(this.subscribers.size);
    });
  }

  private onNotification(payload: string | undefined): void {
    let topic: string;
    let seq: number | undefined;
    let renotice: boolean;
    try {
      const change = liveChange.parse(JSON.parse(payload ?? ""));
      ({ topic, seq } = change);
      renotice = change.renotice === true;
    } catch {
      return;
    }
    liveBus().emit("topic", topic, renotice);
    // Credential changes are for this server's own sockets, never for browsers to subscribe to.
    if (isAuthTopic(topic)) return;
    if (isSharedReadTopic(topic)) this.shared.changed(topic, seq);
    else for (const sub of this.subscribers) if (sub.topics.has(topic)) this.notify(sub, topic);
  }

  private notify(sub: Subscriber, topic: string): void {
    if (sub.pending.has(topic)) return;
    const wait = (sub.lastSentAt.get(topic) ?? 0) + COALESCE_MS - Date.now();
    const fire = () => {
      sub.pending.delete(topic);
      sub.lastSentAt.set(topic, Date.now());
      sub.seq += 1;
      this.send(sub, { type: "changed", topic, seq: sub.seq, at: Date.now() });
    };
    if (wait <= 0) fire();
    else sub.pending.set(topic, setTimeout(fire, wait));
  }

  private send(sub: Subscriber, msg: LiveServerMessage): void {
    if (sub.ws.readyState === sub.ws.OPEN) sub.ws.send(JSON.stringify(msg));
  }

  /** Stops listening and closes every browser socket (going away). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.refreshTimer);
    this.shared.close();
    for (const sub of this.subscribers) sub.ws.close(1001, "server shutting down");
    await this.listener?.end().catch(() => undefined);
  }
}
