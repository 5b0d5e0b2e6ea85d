import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import WebSocket, { type RawData } from "ws";

import { MAX_FRAME_BYTES, PROTOCOL_VERSION, serverFrame, stringifyJson } from "@/lib/protocol";

import { backoffDelayMs, systemClock, type Clock } from "./clock";
import { FlushWaiters, settledUpTo } from "./flush-waiters";
import { PoisonGuard } from "./poison";
import { parseServerUrls } from "./server-urls";
import {
  PitwallAuthError,
  SocketClosedError,
  type FrameRejection,
  type OutgoingFrame,
  type PitwallSocketEvents,
  type PitwallSocketOptions,
  type PitwallSocketStats,
} from "./socket-types";
import { frameType, ingestUrl, lenientError, rawText } from "./socket-wire";
import { FrameSpool, type SpooledFrame } from "./spool";

export * from "./socket-types";
export { ingestUrl } from "./socket-wire";

/**
 * The worker SDK's WebSocket client for `/ws/ingest`: at-least-once delivery that the server's
 * dedupe-by-id turns into exactly-once storage.
 *
 * Every frame gets a stable id and stays in memory (and in the optional spool folder) until the
 * server acks or rejects it. After a disconnect the client reconnects with exponential backoff
 * and jitter and resends every unsettled frame in the order it was first sent, under the same id,
 * so frames committed before the disconnect but not acked are acked again without being applied
 * twice. Given several server URLs (instances sharing one PostgreSQL), each new attempt after a
 * connection ended or failed goes to the next URL in turn: the dedupe table is in the database, so
 * the resends to another instance are exactly-once too. Rejected frames (`error` replies) are final: reported through `rejected`, never resent.
 */

interface Entry extends SpooledFrame {
  seq: number;
  bytes: number;
  /** Connection generation this entry was last written on (-1: never). */
  gen: number;
}

/** Connections that lasted this long reset the backoff (a server that accepts then drops at once does not). */
const STABLE_CONNECTION_MS = 10_000;

/**
 * A reconnecting, resending client of `/ws/ingest`. Connects at construction; call `close()` when
 * done (after `flush()` to wait for acks).
 * @throws SpoolLockedError (from the constructor) when `spoolDir` is in use by another live client;
 *   TypeError when `url` holds an entry that is not an http(s)/ws(s) URL.
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
  private readonly waiters: FlushWaiters;
  private readonly spool: FrameSpool | null;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly idPrefix: string;
  /** The `/ws/ingest` URLs, one per server (several: failover in turn). */
  private readonly wsUrls: string[];
  /** Index into wsUrls of the current (or next) connection. */
  private urlIndex = 0;
  private readonly loop: Promise<void>;
  /** Aborted by close(): wakes the reconnect sleep. */
  private readonly closing = new AbortController();
  private readonly closedSignal = new Promise<void>((resolve) =>
    this.closing.signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  private readonly counts = {
    queued: 0,
    replayed: 0,
    sent: 0,
    resent: 0,
    acked: 0,
    rejected: 0,
    gaveUp: 0,
    reconnects: 0,
    opens: 0,
  };
  private readonly poison: PoisonGuard;

  constructor(private readonly opts: PitwallSocketOptions) {
    super();
    this.clock = opts.clock ?? systemClock;
    this.waiters = new FlushWaiters(this.clock, this.unacked);
    this.poison = new PoisonGuard(opts.giveUpAfter ?? 5);
    this.random = opts.random ?? Math.random;
    this.idPrefix = opts.idPrefix ?? `w${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;
    this.wsUrls = parseServerUrls(opts.url).map(ingestUrl);
    this.spool = opts.spoolDir
      ? FrameSpool.open(opts.spoolDir, { compactAfter: opts.spoolCompactAfter })
      : null;
    for (const f of this.spool?.pending ?? []) {
      this.track(f.id, f.text);
      this.counts.replayed++;
    }
    this.loop = this.connectLoop();
  }

  /** The `/ws/ingest` URL this client is connected to, or will try next. */
  get currentUrl(): string {
    return this.wsUrls[this.urlIndex]!;
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
    const id =
      typeof frame.id === "string" && frame.id !== ""
        ? frame.id
        : `${this.idPrefix}-${++this.idSeq}`;
    const full = { v: PROTOCOL_VERSION, ...frame, id };
    if (this.unacked.has(id)) return id;
    const text = stringifyJson(full);
    if (Buffer.byteLength(text) > MAX_FRAME_BYTES - 2) {
      this.counts.rejected++;
      const rejection: FrameRejection = {
        id,
        code: "frame_too_large",
        message: `frame is ${Buffer.byteLength(text)} bytes; the limit is ${MAX_FRAME_BYTES} (split it)`,
      };
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
    if (settledUpTo(this.unacked, uptoSeq)) return Promise.resolve();
    if (this.closed) return Promise.reject(new SocketClosedError(this.unacked.size));
    return this.waiters.wait(uptoSeq, timeoutMs);
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
    this.waiters.failAll(new SocketClosedError(this.unacked.size));
  }

  /** Current counters. */
  stats(): PitwallSocketStats {
    const { queued, replayed, sent, resent, acked, rejected, gaveUp } = this.counts;
    return {
      queued,
      replayed,
      sent,
      resent,
      acked,
      rejected,
      gaveUp,
      pending: this.unacked.size,
      reconnects: this.counts.reconnects,
      connected: this.open,
    };
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
      void this.closedSignal.then(
        () => (cleanup(), reject(new SocketClosedError(this.unacked.size))),
      );
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
    // Failed attempts since the last stable connection. With n URLs the backoff grows once per
    // round over all of them, so the next instance is tried after a short jittered delay while a
    // whole cluster that is down is not hammered.
    let failures = 0;
    while (!this.closed) {
      const ended = await this.connectOnce(this.wsUrls[this.urlIndex]!);
      if (this.closed) break;
      this.checkPoison(ended.code);
      if (ended.fatal) {
        this.fatalError = ended.fatal;
        this.waiters.failAll(ended.fatal);
        this.emit("fatal", ended.fatal);
        break;
      }
      if (ended.stable) failures = 0;
      const retryInMs = backoffDelayMs(
        Math.floor(failures++ / this.wsUrls.length),
        this.opts.backoff,
        this.random,
      );
      const url = this.wsUrls[this.urlIndex]!;
      this.urlIndex = (this.urlIndex + 1) % this.wsUrls.length;
      this.emit("disconnect", {
        code: ended.code,
        reason: ended.reason,
        error: ended.error,
        retryInMs,
        url,
        nextUrl: this.wsUrls[this.urlIndex]!,
      });
      await Promise.race([this.clock.sleep(retryInMs, this.closing.signal), this.closedSignal]);
    }
  }

  /**
   * After a connection ended: when the server closed it with 1011 `giveUpAfter` times in a row
   * while the same frame (written on each of those connections) was the oldest unacknowledged
   * one, settle that frame as rejected (`gave_up`) with one warning line, so the rest move on.
   */
  private checkPoison(code: number | null): void {
    const oldest = this.unacked.values().next().value;
    const id = this.poison.onClose(code, oldest && oldest.gen === this.gen ? oldest.id : null);
    if (id === null || !oldest) return;
    const limit = this.opts.giveUpAfter ?? 5;
    const message = `the server closed the socket with 1011 ${limit} times in a row while this frame was the oldest unacknowledged one; giving up on it`;
    (this.opts.warn ?? console.warn)(
      `pitwall: gave up on frame ${id} (${frameType(oldest.text)}): ${message}`,
    );
    this.settle([id]);
    this.counts.rejected++;
    this.counts.gaveUp++;
    this.emit("rejected", { id, code: "gave_up", message });
  }

  /** One connection, from dial to close. Resolves with how it ended; never rejects. */
  private connectOnce(wsUrl: string): Promise<{
    code: number | null;
    reason: string;
    error?: Error;
    fatal?: Error;
    stable: boolean;
  }> {
    return new Promise((resolve) => {
      const ws = new WebSocket(wsUrl, {
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
        if (status === 401 || status === 403)
          fatal = new PitwallAuthError(
            `Pitwall refused the worker token (HTTP ${status} on ${wsUrl})`,
          );
        else error = new Error(`unexpected HTTP ${status} from ${wsUrl}`);
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
        if (code === 1008)
          fatal = new PitwallAuthError(
            `Pitwall closed the socket: ${reason || "policy violation (token revoked?)"}`,
          );
        const stable =
          openedAt !== null && (acked || this.clock.now() - openedAt >= STABLE_CONNECTION_MS);
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
      while (
        this.toSendHead < this.toSend.length &&
        batch.length < maxFrames &&
        this.inFlight + batch.length < maxInFlight
      ) {
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
    const error = frame?.type === "error" ? frame : lenientError(value);
    if (!error) {
      // Other server → worker messages (e.g. plan decisions): for whoever listens.
      if (value && typeof value === "object" && !Array.isArray(value))
        this.emit("message", value as Record<string, unknown>);
      return false;
    }
    if (error.id === null) {
      this.emit("rejected", { id: null, code: error.code, message: error.message });
    } else if (this.unacked.has(error.id)) {
      this.settle([error.id]);
      this.counts.rejected++;
      this.emit("rejected", { id: error.id, code: error.code, message: error.message });
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
    this.waiters.resolveSettled();
    this.pump();
    return done;
  }
}
