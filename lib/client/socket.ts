import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import WebSocket, { type RawData } from "ws";
import { MAX_FRAME_BYTES, PROTOCOL_VERSION, serverFrame, stringifyJson, type ClientFrameInput, type ErrorCode } from "@/lib/protocol";
import { backoffDelayMs, systemClock, type BackoffOptions, type Clock } from "./clock";
import { FrameSpool, type SpooledFrame } from "./spool";

/**
 * The worker SDK's WebSocket client for `/ws/ingest`: at-least-once delivery that the server's
 * dedupe-by-id turns into exactly-once storage.
 *
 * Every frame gets a stable id and stays in memory (and in the optional spool folder) until the
 * server acks or rejects it. After a disconnect the client reconnects with exponential backoff
 * and jitter and resends every unsettled frame in the order it was first sent, under the same id,
 * so frames committed before the disconnect but not acked are acked again without being applied
 * twice. Rejected frames (`error` replies) are final: reported through `rejected`, never resent.
 */

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A frame as given to {@link PitwallSocket.send}: `v` and `id` may be left out (filled in). */
export type OutgoingFrame = DistributiveOmit<ClientFrameInput, "v" | "id"> & { v?: typeof PROTOCOL_VERSION; id?: string };

/** A frame the server (or the client, for oversize frames) refused; never resent. */
export interface FrameRejection {
  /** The frame's id; null when the server could not read one. */
  id: string | null;
  code: ErrorCode;
  message: string;
}

/** Why a connection ended; `retryInMs` is the backoff delay before the next attempt. */
export interface DisconnectInfo {
  /** WebSocket close code (1006 = dropped without a close frame), null if it never opened. */
  code: number | null;
  reason: string;
  error?: Error;
  retryInMs: number;
}

/** Events of {@link PitwallSocket}. */
export interface PitwallSocketEvents {
  /** Connected (again); unsettled frames are being resent. */
  open: [];
  /** A connection ended or could not be made; the client retries after `retryInMs`. */
  disconnect: [info: DisconnectInfo];
  /** The server committed these frame ids (or had before). */
  ack: [ids: string[]];
  /** A frame was rejected (invalid, unknown run, too large…): final. */
  rejected: [rejection: FrameRejection];
  /** The client gave up for good (bad or revoked token); frames stay in the spool. */
  fatal: [error: Error];
  /** Any other server frame (future server → worker messages). */
  message: [frame: Record<string, unknown>];
}

/** Options of {@link PitwallSocket}. */
export interface PitwallSocketOptions {
  /** Pitwall base URL (`http://host:8080`; `ws://…/ws/ingest` works too). */
  url: string;
  /** Worker token (`npx pitwall token create <host>`). */
  token: string;
  /** Folder of the on-disk spool (see spool.ts); without it unsettled frames live in memory only. */
  spoolDir?: string;
  /** Settled ids after which the spool is compacted (default 5000). */
  spoolCompactAfter?: number;
  /** Clock for backoff sleeps, flush timeouts and connection age (default: the real one). */
  clock?: Clock;
  /** Random source in [0, 1) for backoff jitter (default Math.random). */
  random?: () => number;
  /** Reconnect backoff (default 250 ms doubling up to 30 s, equal jitter). */
  backoff?: BackoffOptions;
  /** Prefix of generated frame ids (default: random per client instance). */
  idPrefix?: string;
  /** Frames sent but not yet settled on one connection before sending pauses (default 2000). */
  maxInFlightFrames?: number;
  /** Frames per WebSocket message (default 500; one message is a JSON array). */
  maxMessageFrames?: number;
  /** Bytes per WebSocket message (default 512 KiB; the server closes at 1 MiB). */
  maxMessageBytes?: number;
  /** Client-side ping period in ms to detect a dead server (default 30 s; 0 disables). */
  pingIntervalMs?: number;
  /** Opening handshake timeout in ms (default 10 s). */
  handshakeTimeoutMs?: number;
}

/** Counters of a {@link PitwallSocket}, for summaries and tests. */
export interface PitwallSocketStats {
  /** Frames accepted by `send` (including spooled frames replayed at start). */
  queued: number;
  /** Frames replayed from the spool at start. */
  replayed: number;
  /** Frames written to a socket, resends included. */
  sent: number;
  /** Frames written again on a later connection. */
  resent: number;
  acked: number;
  rejected: number;
  /** Frames not yet settled (in memory and spool). */
  pending: number;
  /** Connections opened after the first. */
  reconnects: number;
  connected: boolean;
}

/** Thrown by `flush` when frames are still unsettled after its timeout. */
export class FlushTimeoutError extends Error {
  constructor(readonly pending: number, timeoutMs: number) {
    super(`${pending} frame(s) still unacknowledged after ${timeoutMs} ms`);
    this.name = "FlushTimeoutError";
  }
}

/** The server refused the token (HTTP 401/403 on the upgrade, or close code 1008). */
export class PitwallAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PitwallAuthError";
  }
}

/** Thrown by `flush` (and `send`) once the client was closed. */
export class SocketClosedError extends Error {
  constructor(pending: number) {
    super(`the Pitwall socket was closed with ${pending} frame(s) unacknowledged`);
    this.name = "SocketClosedError";
  }
}

interface Entry extends SpooledFrame {
  seq: number;
  bytes: number;
  /** Connection generation this entry was last written on (-1: never). */
  gen: number;
}

interface FlushWaiter {
  uptoSeq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Wraps resolve/reject so that settling also aborts `timeout` (its timer must not hold the process). */
function settleOnce(resolve: () => void, reject: (err: Error) => void, timeout: AbortController): Pick<FlushWaiter, "resolve" | "reject"> {
  return {
    resolve: () => (timeout.abort(), resolve()),
    reject: (err) => (timeout.abort(), reject(err)),
  };
}

/** Connections that lasted this long reset the backoff (a server that accepts then drops at once does not). */
const STABLE_CONNECTION_MS = 10_000;

/**
 * A reconnecting, resending client of `/ws/ingest`. Connects at construction; call `close()` when
 * done (after `flush()` to wait for acks).
 * @throws SpoolLockedError (from the constructor) when `spoolDir` is in use by another live client.
 */
export class PitwallSocket extends EventEmitter<PitwallSocketEvents> {
  private readonly unacked = new Map<string, Entry>();
  /** Entries to write on the current connection, in order (may hold settled ones: skipped). */
  private toSend: Entry[] = [];
  private toSendHead = 0;
  private inFlight = 0;
  private gen = 0;
  private seq = 0;
  private idSeq = 0;
  private ws: WebSocket | null = null;
  private open = false;
  private closed = false;
  private fatalError: Error | null = null;
  private waiters: FlushWaiter[] = [];
  private readonly spool: FrameSpool | null;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly idPrefix: string;
  private readonly wsUrl: string;
  private readonly loop: Promise<void>;
  /** Aborted by close(): wakes the reconnect sleep. */
  private readonly closing = new AbortController();
  private readonly closedSignal = new Promise<void>((resolve) => this.closing.signal.addEventListener("abort", () => resolve(), { once: true }));
  private readonly counts = { queued: 0, replayed: 0, sent: 0, resent: 0, acked: 0, rejected: 0, reconnects: 0, opens: 0 };

  constructor(private readonly opts: PitwallSocketOptions) {
    super();
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.idPrefix = opts.idPrefix ?? `w${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;
    this.wsUrl = ingestUrl(opts.url);
    this.spool = opts.spoolDir ? FrameSpool.open(opts.spoolDir, { compactAfter: opts.spoolCompactAfter }) : null;
    for (const f of this.spool?.pending ?? []) {
      this.track(f.id, f.text);
      this.counts.replayed++;
    }
    this.loop = this.connectLoop();
  }

  /** Frames found in the spool at start (sent first, before anything new). */
  get replayedFrames(): number {
    return this.counts.replayed;
  }

  /**
   * Queues a frame; fills in `v` and a generated `id` when missing and returns the id. The frame is
   * spooled (when configured) before it is sent. A frame over 1 MiB is rejected at once (a
   * `rejected` event with `frame_too_large`, emitted asynchronously); an id still pending is not
   * queued twice.
   * @throws SocketClosedError after `close()`.
   */
  send(frame: OutgoingFrame): string {
    return this.sendValue(frame as unknown as Record<string, unknown>);
  }

  /**
   * Like {@link send} for frames not typed at compile time (read from a file): the object is sent
   * as is, with `v` and `id` filled in when missing; the server validates it.
   * @throws SocketClosedError after `close()`.
   */
  sendValue(frame: Record<string, unknown>): string {
    if (this.closed) throw new SocketClosedError(this.unacked.size);
    const id = typeof frame.id === "string" && frame.id !== "" ? frame.id : `${this.idPrefix}-${++this.idSeq}`;
    const full = { v: PROTOCOL_VERSION, ...frame, id };
    if (this.unacked.has(id)) return id;
    const text = stringifyJson(full);
    if (Buffer.byteLength(text) > MAX_FRAME_BYTES - 2) {
      this.counts.rejected++;
      const rejection: FrameRejection = { id, code: "frame_too_large", message: `frame is ${Buffer.byteLength(text)} bytes; the limit is ${MAX_FRAME_BYTES} (split it)` };
      process.nextTick(() => this.emit("rejected", rejection));
      return id;
    }
    this.spool?.append([{ id, text }]);
    const entry = this.track(id, text);
    if (this.open) {
      this.toSend.push(entry);
      this.schedulePump();
    }
    return id;
  }

  /**
   * Resolves when every frame queued so far is settled (acked or rejected).
   * @throws FlushTimeoutError after `timeoutMs` (default: no limit); the fatal error (e.g.
   *   PitwallAuthError) if the client gave up; SocketClosedError if closed meanwhile.
   */
  flush(timeoutMs?: number): Promise<void> {
    if (this.fatalError) return Promise.reject(this.fatalError);
    const uptoSeq = this.seq;
    if (this.settledUpTo(uptoSeq)) return Promise.resolve();
    if (this.closed) return Promise.reject(new SocketClosedError(this.unacked.size));
    return new Promise<void>((resolve, reject) => {
      const timeout = new AbortController();
      const waiter: FlushWaiter = { uptoSeq, ...settleOnce(resolve, reject, timeout) };
      this.waiters.push(waiter);
      if (timeoutMs !== undefined) {
        void this.clock.sleep(timeoutMs, timeout.signal).then(() => {
          const i = this.waiters.indexOf(waiter);
          if (i < 0) return;
          this.waiters.splice(i, 1);
          waiter.reject(new FlushTimeoutError(this.pendingUpTo(uptoSeq), timeoutMs));
        });
      }
    });
  }

  /**
   * Stops reconnecting and closes the socket. Unsettled frames stay in the spool for the next
   * client on the same folder (and are lost without a spool); pending `flush()` calls reject.
   */
  async close(): Promise<void> {
    if (this.closed) return this.loop;
    this.closed = true;
    this.closing.abort();
    if (this.ws && this.ws.readyState !== WebSocket.CLOSED) {
      if (this.open) this.ws.close(1000, "client closing");
      else this.ws.terminate();
    }
    await this.loop;
    this.spool?.close(this.unacked.values());
    this.failWaiters(new SocketClosedError(this.unacked.size));
  }

  /** Current counters. */
  stats(): PitwallSocketStats {
    const { queued, replayed, sent, resent, acked, rejected } = this.counts;
    return { queued, replayed, sent, resent, acked, rejected, pending: this.unacked.size, reconnects: this.counts.reconnects, connected: this.open };
  }

  /** Resolves once connected (immediately when connected), or rejects with the fatal error / on close. */
  waitOpen(): Promise<void> {
    if (this.open) return Promise.resolve();
    if (this.fatalError) return Promise.reject(this.fatalError);
    if (this.closed) return Promise.reject(new SocketClosedError(this.unacked.size));
    return new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        this.off("open", onOpen);
        this.off("fatal", onFatal);
      };
      const onOpen = () => (cleanup(), resolve());
      const onFatal = (err: Error) => (cleanup(), reject(err));
      this.on("open", onOpen);
      this.on("fatal", onFatal);
      void this.closedSignal.then(() => (cleanup(), reject(new SocketClosedError(this.unacked.size))));
    });
  }

  private track(id: string, text: string): Entry {
    const entry: Entry = { id, text, seq: ++this.seq, bytes: Buffer.byteLength(text), gen: -1 };
    this.unacked.set(id, entry);
    this.counts.queued++;
    return entry;
  }

  // ---- connection ---------------------------------------------------------------------------

  private async connectLoop(): Promise<void> {
    let attempt = 0;
    while (!this.closed) {
      const ended = await this.connectOnce();
      if (this.closed) break;
      if (ended.fatal) {
        this.fatalError = ended.fatal;
        this.failWaiters(ended.fatal);
        this.emit("fatal", ended.fatal);
        break;
      }
      if (ended.stable) attempt = 0;
      const retryInMs = backoffDelayMs(attempt++, this.opts.backoff, this.random);
      this.emit("disconnect", { code: ended.code, reason: ended.reason, error: ended.error, retryInMs });
      await Promise.race([this.clock.sleep(retryInMs, this.closing.signal), this.closedSignal]);
    }
  }

  /** One connection, from dial to close. Resolves with how it ended; never rejects. */
  private connectOnce(): Promise<{ code: number | null; reason: string; error?: Error; fatal?: Error; stable: boolean }> {
    return new Promise((resolve) => {
      const ws = new WebSocket(this.wsUrl, {
        headers: { authorization: `Bearer ${this.opts.token}` },
        handshakeTimeout: this.opts.handshakeTimeoutMs ?? 10_000,
        maxPayload: 16 * 1024 * 1024,
      });
      this.ws = ws;
      let openedAt: number | null = null;
      let acked = false;
      let error: Error | undefined;
      let fatal: Error | undefined;
      let pinger: NodeJS.Timeout | null = null;
      let alive = true;

      ws.on("unexpected-response", (_req, res) => {
        const status = res.statusCode ?? 0;
        if (status === 401 || status === 403) fatal = new PitwallAuthError(`Pitwall refused the worker token (HTTP ${status} on ${this.wsUrl})`);
        else error = new Error(`unexpected HTTP ${status} from ${this.wsUrl}`);
        res.resume();
        ws.terminate();
      });
      ws.on("error", (err) => {
        error ??= err;
      });
      ws.on("open", () => {
        openedAt = this.clock.now();
        if (this.counts.opens++ > 0) this.counts.reconnects++;
        const pingMs = this.opts.pingIntervalMs ?? 30_000;
        if (pingMs > 0) {
          pinger = setInterval(() => {
            if (!alive) return ws.terminate();
            alive = false;
            ws.ping();
          }, pingMs);
          pinger.unref();
        }
        this.onOpen();
      });
      ws.on("pong", () => (alive = true));
      ws.on("ping", () => (alive = true));
      ws.on("message", (data: RawData) => {
        alive = true;
        if (this.onMessage(data)) acked = true;
      });
      ws.on("close", (code, reasonBuf) => {
        if (pinger) clearInterval(pinger);
        this.open = false;
        this.ws = null;
        const reason = reasonBuf.toString();
        if (code === 1008) fatal = new PitwallAuthError(`Pitwall closed the socket: ${reason || "policy violation (token revoked?)"}`);
        const stable = openedAt !== null && (acked || this.clock.now() - openedAt >= STABLE_CONNECTION_MS);
        resolve({ code: openedAt === null ? null : code, reason, error, fatal, stable });
      });
    });
  }

  private onOpen(): void {
    this.open = true;
    this.gen++;
    this.inFlight = 0;
    // Resend everything unsettled, in first-sent order, under the same ids: the server acks frames
    // it committed before without applying them again.
    this.toSend = [...this.unacked.values()];
    this.toSendHead = 0;
    this.emit("open");
    this.pump();
  }

  private pumpScheduled = false;

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    // Coalesce a burst of send() calls into few messages.
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const ws = this.ws;
    if (!ws || !this.open) return;
    const maxInFlight = this.opts.maxInFlightFrames ?? 2000;
    const maxFrames = this.opts.maxMessageFrames ?? 500;
    const maxBytes = this.opts.maxMessageBytes ?? 512 * 1024;
    while (this.toSendHead < this.toSend.length && this.inFlight < maxInFlight) {
      const batch: Entry[] = [];
      let bytes = 2;
      while (this.toSendHead < this.toSend.length && batch.length < maxFrames && this.inFlight + batch.length < maxInFlight) {
        const entry = this.toSend[this.toSendHead]!;
        if (this.unacked.get(entry.id) !== entry) {
          this.toSendHead++; // settled meanwhile
          continue;
        }
        if (batch.length > 0 && bytes + entry.bytes + 1 > maxBytes) break;
        batch.push(entry);
        bytes += entry.bytes + 1;
        this.toSendHead++;
      }
      if (batch.length === 0) continue;
      for (const entry of batch) {
        if (entry.gen !== -1) this.counts.resent++;
        entry.gen = this.gen;
      }
      this.inFlight += batch.length;
      this.counts.sent += batch.length;
      ws.send(`[${batch.map((e) => e.text).join(",")}]`);
    }
    if (this.toSendHead === this.toSend.length) {
      this.toSend = [];
      this.toSendHead = 0;
    }
  }

  /** Handles one server message; returns true when it was an ack. */
  private onMessage(data: RawData): boolean {
    let value: unknown;
    try {
      value = JSON.parse(rawText(data));
    } catch {
      return false;
    }
    const parsed = serverFrame.safeParse(value);
    const frame = parsed.success ? parsed.data : null;
    if (frame?.type === "ack") {
      const settled = this.settle(frame.ids);
      this.counts.acked += settled.length;
      if (settled.length) this.emit("ack", settled);
      return true;
    }
    if (frame?.type !== "error") {
      // Other server → worker messages (e.g. plan decisions): for whoever listens.
      if (value && typeof value === "object" && !Array.isArray(value)) this.emit("message", value as Record<string, unknown>);
      return false;
    }
    if (frame.id === null) {
      this.emit("rejected", { id: null, code: frame.code, message: frame.message });
    } else if (this.unacked.has(frame.id)) {
      this.settle([frame.id]);
      this.counts.rejected++;
      this.emit("rejected", { id: frame.id, code: frame.code, message: frame.message });
    }
    return false;
  }

  /** Removes settled ids (acked or rejected); returns those that were pending. */
  private settle(ids: readonly string[]): string[] {
    const done: string[] = [];
    for (const id of ids) {
      const entry = this.unacked.get(id);
      if (!entry) continue;
      this.unacked.delete(id);
      if (entry.gen === this.gen) this.inFlight--;
      done.push(id);
    }
    if (done.length === 0) return done;
    if (this.spool?.settle(done)) this.spool.compact(this.unacked.values());
    this.resolveWaiters();
    this.pump();
    return done;
  }

  private settledUpTo(seq: number): boolean {
    const first = this.unacked.values().next();
    return first.done === true || first.value.seq > seq;
  }

  private pendingUpTo(seq: number): number {
    let n = 0;
    for (const e of this.unacked.values()) {
      if (e.seq > seq) break;
      n++;
    }
    return n;
  }

  private resolveWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: FlushWaiter[] = [];
    for (const w of this.waiters) {
      if (this.settledUpTo(w.uptoSeq)) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  private failWaiters(err: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(err);
  }
}

/**
 * The `/ws/ingest` URL for a Pitwall base URL: http→ws, https→wss; a base path (reverse proxy
 * prefix) is kept. A URL already ending in `/ws/ingest` is used as is.
 * @throws TypeError on an unparsable URL.
 */
export function ingestUrl(base: string): string {
  const url = new URL(base);
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  if (!url.pathname.endsWith("/ws/ingest")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/ws/ingest`;
  return url.toString();
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}
