import { reviveNonFinite } from "@/lib/api/client";
import {
  LIVE_SESSION_ENDED,
  liveServerMessage,
  type LiveResync,
  type LiveSubscribe,
} from "@/lib/protocol/live";

import { SharedTopics, type MergeResult } from "./shared-topics";

/**
 * One browser connection to `/ws/live`, shared by every component on the page. Components
 * subscribe to topics; the client keeps the union subscribed on the server, reconnects with
 * exponential backoff (with jitter, so a restarted server is not stampeded) and asks every
 * subscriber to resync after each (re)connect, because changes made while the socket was down
 * were never announced. Shared-read topics (`run:<id>`) arrive as a snapshot then deltas, merged
 * here (SharedTopics) and handed to `onData`; a delta that does not follow the copy held asks the
 * server for a resync. While the tab is hidden the client subscribes to nothing; on return it
 * subscribes again (fresh snapshots) and asks every subscriber to resync. Plain TypeScript with injected socket and timers, so it is testable.
 */

/** `idle`: nobody subscribed; `connecting`: first attempt; `open`: live; `reconnecting`: down, retrying (poll meanwhile). */
export type LiveStatus = "idle" | "connecting" | "open" | "reconnecting";

/** What a component hands to {@link LiveClient.subscribe}. */
export interface LiveSubscription {
  topics: readonly string[];
  /** A topic this subscription listens to changed. */
  onChanged(topic: string): void;
  /** Notifications may have been missed (after (re)connect, a sequence gap, the tab shown again): refetch everything. */
  onResync(): void;
  /**
   * The merged value of a shared-read topic (a snapshot, or the copy with a delta applied), with
   * non-finite numbers revived. Without it, such a topic's updates are reported to `onChanged`.
   */
  onData?(topic: string, data: unknown): void;
}

/** The page's visibility (the Page Visibility API in browsers). */
export interface VisibilityLike {
  hidden(): boolean;
  /** Calls `listener` on every visibility change; returns the function that removes it. */
  onChange(listener: () => void): () => void;
}

/** The part of the DOM WebSocket the client uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
}

/** Injected environment (defaults: the browser's WebSocket, timers and Math.random). */
export interface LiveClientDeps {
  url: () => string;
  createSocket: (url: string) => SocketLike;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
  random: () => number;
  /** First reconnect delay (ms); doubles per failed attempt up to `maxDelayMs`. */
  minDelayMs: number;
  maxDelayMs: number;
  /** Keep the socket this long (ms) after the last unsubscribe, so page navigations reuse it. */
  idleCloseMs: number;
  /** The server closed the socket because the session ended (code 4401); the client stops reconnecting. */
  onSessionEnded?: () => void;
  /** Hidden tabs pause (subscribe to nothing); absent: always visible. */
  visibility?: VisibilityLike;
}

const OPEN = 1;

/** ws(s)://<this host>/ws/live. */
export function defaultLiveUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === "https:" ? "wss:" : "ws:"}//${host}/ws/live`;
}

/** Browser defaults for {@link LiveClientDeps}; `onSessionEnded` is the caller's (e.g. go to sign-in). */
export function browserDeps(onSessionEnded?: () => void): LiveClientDeps {
  return {
    url: defaultLiveUrl,
    createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
    setTimer: (fn, ms) => window.setTimeout(fn, ms),
    clearTimer: (h) => window.clearTimeout(h as number),
    random: Math.random,
    minDelayMs: 500,
    maxDelayMs: 15_000,
    idleCloseMs: 5_000,
    onSessionEnded,
    visibility: {
      hidden: () => document.visibilityState === "hidden",
      onChange: (listener) => {
        document.addEventListener("visibilitychange", listener);
        return () => document.removeEventListener("visibilitychange", listener);
      },
    },
  };
}

/** Shared live connection; see the module comment. */
export class LiveClient {
  private readonly subs = new Set<LiveSubscription>();
  private readonly statusListeners = new Set<() => void>();
  private ws: SocketLike | null = null;
  private status: LiveStatus = "idle";
  private attempt = 0;
  private retryTimer: unknown = null;
  private idleTimer: unknown = null;
  private lastSeq: number | null = null;
  private readonly shared = new SharedTopics();
  private hidden = false;
  private stopWatchingVisibility: (() => void) | null = null;

  constructor(private readonly deps: LiveClientDeps) {}

  /** Current status (stable between changes, for useSyncExternalStore). */
  getStatus = (): LiveStatus => this.status;

  /** Calls `listener` on every status change; returns the unsubscribe function. */
  onStatus = (listener: () => void): (() => void) => {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  };

  /** Adds a subscription (connecting if needed); returns the function that removes it. */
  subscribe(sub: LiveSubscription): () => void {
    this.subs.add(sub);
    this.watchVisibility();
    if (this.idleTimer !== null) {
      this.deps.clearTimer(this.idleTimer);
      this.idleTimer = null;
    }
    if (!this.ws && this.retryTimer === null) this.connect();
    else this.sendTopics();
    return () => {
      if (!this.subs.delete(sub)) return;
      if (this.subs.size > 0) {
        this.sendTopics();
        return;
      }
      this.idleTimer = this.deps.setTimer(() => {
        this.idleTimer = null;
        if (this.subs.size === 0) this.shutdown();
      }, this.deps.idleCloseMs);
    };
  }

  private setStatus(s: LiveStatus): void {
    if (s === this.status) return;
    this.status = s;
    for (const l of this.statusListeners) l();
  }

  private watchVisibility(): void {
    const v = this.deps.visibility;
    if (!v || this.stopWatchingVisibility) return;
    this.hidden = v.hidden();
    this.stopWatchingVisibility = v.onChange(() => {
      const hidden = v.hidden();
      if (hidden === this.hidden) return;
      this.hidden = hidden;
      // Hidden: the server stops sending (and reading for us); shown: fresh snapshots and refetches.
      this.shared.clear();
      this.sendTopics();
      if (!hidden && this.ws?.readyState === OPEN) this.resyncAll();
    });
  }

  private topics(): string[] {
    if (this.hidden) return [];
    const all = new Set<string>();
    for (const s of this.subs) for (const t of s.topics) all.add(t);
    return [...all].sort();
  }

  private sendTopics(): void {
    if (!this.ws || this.ws.readyState !== OPEN) return;
    const topics = this.topics();
    this.shared.retain(new Set(topics));
    const msg: LiveSubscribe = { type: "subscribe", topics };
    this.ws.send(JSON.stringify(msg));
  }

  private connect(): void {
    this.setStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    let ws: SocketLike;
    try {
      ws = this.deps.createSocket(this.deps.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.lastSeq = null;
      this.shared.clear();
      this.setStatus("open");
      this.sendTopics();
      this.resyncAll();
    };
    ws.onmessage = (ev) => {
      if (this.ws === ws) this.handleMessage(ev.data);
    };
    ws.onerror = () => {
      // A close event always follows; reconnecting happens there.
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if ((ev as { code?: unknown } | null)?.code === LIVE_SESSION_ENDED) {
        this.setStatus("idle");
        this.deps.onSessionEnded?.();
        return;
      }
      if (this.subs.size === 0) {
        this.setStatus("idle");
        return;
      }
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    this.setStatus("reconnecting");
    const cap = Math.min(this.deps.maxDelayMs, this.deps.minDelayMs * 2 ** this.attempt);
    const delay = cap / 2 + this.deps.random() * (cap / 2);
    this.attempt++;
    this.retryTimer = this.deps.setTimer(() => {
      this.retryTimer = null;
      if (this.subs.size > 0) this.connect();
      else this.setStatus("idle");
    }, delay);
  }

  private handleMessage(data: unknown): void {
    let value: unknown;
    try {
      value = JSON.parse(String(data), reviveNonFinite);
    } catch {
      return;
    }
    const parsed = liveServerMessage.safeParse(value);
    if (!parsed.success) return;
    const msg = parsed.data;
    if (msg.type === "hello") {
      this.lastSeq = msg.seq;
    } else if (msg.type === "changed") {
      const gap = this.lastSeq !== null && msg.seq !== this.lastSeq + 1;
      this.lastSeq = msg.seq;
      if (gap) {
        this.resyncAll();
        return;
      }
      for (const s of this.subs) if (s.topics.includes(msg.topic)) s.onChanged(msg.topic);
    } else if (msg.type === "snapshot") {
      this.deliver(msg.topic, this.shared.snapshot(msg.topic, msg.seq, msg.data));
    } else if (msg.type === "delta") {
      this.deliver(msg.topic, this.shared.delta(msg.topic, msg.base, msg.seq, msg.patch));
    }
  }

  private deliver(topic: string, result: MergeResult): void {
    if (result.kind === "gap") {
      const msg: LiveResync = { type: "resync", topics: [topic] };
      if (this.ws?.readyState === OPEN) this.ws.send(JSON.stringify(msg));
      return;
    }
    if (result.kind !== "data") return;
    for (const s of this.subs) {
      if (!s.topics.includes(topic)) continue;
      if (s.onData) s.onData(topic, result.data);
      else s.onChanged(topic);
    }
  }

  private resyncAll(): void {
    for (const s of this.subs) s.onResync();
  }

  private shutdown(): void {
    if (this.retryTimer !== null) {
      this.deps.clearTimer(this.retryTimer);
      this.retryTimer = null;
    }
    const ws = this.ws;
    this.ws = null;
    this.attempt = 0;
    ws?.close(1000, "no subscribers");
    this.stopWatchingVisibility?.();
    this.stopWatchingVisibility = null;
    this.setStatus("idle");
  }
}
