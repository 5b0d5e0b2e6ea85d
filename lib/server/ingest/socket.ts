import { isUtf8 } from "node:buffer";
import { performance } from "node:perf_hooks";
import type { RawData, WebSocket } from "ws";

import {
  checkFrame,
  MAX_FRAME_BYTES,
  parseWireJson,
  PROTOCOL_VERSION,
  stringifyJson,
  type ClientFrame,
  type ServerFrame,
} from "@/lib/protocol";
import { describeOutage, isDatabaseOutage } from "@/lib/server/database/outage";
import { pool } from "@/lib/server/db";
import { ingestTrace, type BatchTimes } from "@/lib/server/ingest-trace";
import { liveBus } from "@/lib/server/live/bus";
import type { Logger } from "@/lib/server/logger";
import { planDecision } from "@/lib/server/repositories/plan-decisions";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";
import { telemetry } from "@/lib/server/telemetry";

import { groupCommitterFor } from "./group-commit";

/** Frames (or bytes of frame JSON) queued beyond this pause reading from the socket until the queue drains. */
const HIGH_WATER_FRAMES = 20_000;
const HIGH_WATER_BYTES = 32 * 1024 * 1024;
/** One transaction takes at most this much frame JSON (besides the frame-count limit). */
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * One worker connection on `/ws/ingest`.
 *
 * Each message is one frame object or a JSON array of frames. Bad frames are answered with an
 * `error` at once; good frames are queued and written in batches: while one batch is being
 * committed, new frames accumulate, so a fast sender gets large batches and a slow one low
 * latency, without timers. Each batch goes to the pool's group committer (group-commit.ts), which
 * commits it in one transaction together with the batches other sockets submitted meanwhile.
 * Acks are sent only after that COMMIT, listing the committed ids (frames already committed
 * earlier are acked again without being re-applied). One batch per socket is in flight at a
 * time, so the queue above (and its high-water pause) is the socket's backpressure.
 */
export class IngestConnection {
  private queue: Array<{ frame: ClientFrame; bytes: number; receivedMs: number }> = [];
  private queuedBytes = 0;
  private flushing: Promise<void> | null = null;
  private paused = false;
  /** Set when the token was revoked: nothing more of this socket is applied. */
  private revoked = false;
  /** Keys of plans proposed on this socket whose decision it still waits for. */
  private readonly watchedPlans = new Set<string>();
  private readonly onTopic = (topic: string) => {
    const prefix = "plan-decision:";
    if (topic.startsWith(prefix) && this.watchedPlans.has(topic.slice(prefix.length)))
      void this.deliverDecision(topic.slice(prefix.length));
  };

  constructor(
    private readonly ws: WebSocket,
    private readonly principal: TokenPrincipal,
    private readonly opts: { batchFrames: number; log: Logger },
  ) {
    telemetry().ingestSockets.inc();
    ws.on("message", (data, isBinary) => this.onMessage(data, isBinary));
    ws.on("close", () => {
      telemetry().ingestSockets.dec();
      liveBus().off("topic", this.onTopic);
    });
  }

  /** The worker token this socket authenticated with. */
  get tokenId(): number {
    return this.principal.tokenId;
  }

  /**
   * The token was revoked: drop the frames queued but not yet applied (they were never acked, so
   * a worker holding a new token resends them) and close with 1008 (policy violation). A batch
   * already being committed finishes; its ack is not sent.
   */
  revoke(): void {
    this.revoked = true;
    this.queue = [];
    this.queuedBytes = 0;
    this.ws.close(1008, "worker token revoked");
  }

  /** Resolves once every frame received so far is committed (or rejected). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.revoked) return;
    const receivedMs = ingestTrace() ? performance.now() : 0;
    const t = telemetry();
    // ws lets up to twice the limit through (server.ts) so that an oversized message gets a
    // specific answer before the close, not only close code 1009.
    if (rawLength(data) > MAX_FRAME_BYTES) {
      t.framesRejected.inc({ transport: "ws", code: "frame_too_large" });
      this.send({
        v: PROTOCOL_VERSION,
        type: "error",
        id: null,
        code: "frame_too_large",
        message: `message of ${rawLength(data)} bytes is over the ${MAX_FRAME_BYTES}-byte limit; split it`,
      });
      this.ws.close(1009, "message over 1 MiB (frame_too_large)");
      return;
    }
    let parsed: unknown;
    let truncated = false;
    try {
      ({ value: parsed, truncated } = parseWireJson(rawToString(data, isBinary)));
    } catch (err) {
      t.framesReceived.inc({ transport: "ws" });
      t.framesRejected.inc({ transport: "ws", code: "invalid_json" });
      this.send({
        v: PROTOCOL_VERSION,
        type: "error",
        id: null,
        code: "invalid_json",
        message: `message is not JSON: ${(err as Error).message}`,
      });
      return;
    }
    const values = Array.isArray(parsed) ? parsed : [parsed];
    t.framesReceived.inc({ transport: "ws" }, values.length);
    // Memory is bounded by bytes, not only by frame count: frames may be up to 1 MiB each.
    const bytesEach = Math.ceil(rawLength(data) / Math.max(1, values.length));
    for (const value of values) {
      const check = checkFrame(value, { truncated });
      if (check.ok) {
        this.queue.push({ frame: check.frame, bytes: bytesEach, receivedMs });
        this.queuedBytes += bytesEach;
      } else {
        t.framesRejected.inc({ transport: "ws", code: check.code });
        this.send({
          v: PROTOCOL_VERSION,
          type: "error",
          id: check.id,
          code: check.code,
          message: check.message,
        });
      }
    }
    if (
      (this.queue.length > HIGH_WATER_FRAMES || this.queuedBytes > HIGH_WATER_BYTES) &&
      !this.paused
    ) {
      this.paused = true;
      this.ws.pause();
    }
    this.kick();
  }

  private kick(): void {
    if (this.flushing || this.queue.length === 0 || this.revoked) return;
    this.flushing = this.flushLoop().finally(() => {
      this.flushing = null;
      this.kick();
    });
  }

  private async flushLoop(): Promise<void> {
    const t = telemetry();
    while (this.queue.length > 0) {
      let take = 0;
      let bytes = 0;
      while (
        take < this.queue.length &&
        take < this.opts.batchFrames &&
        (take === 0 || bytes + this.queue[take]!.bytes <= BATCH_BYTES)
      ) {
        bytes += this.queue[take]!.bytes;
        take++;
      }
      const taken = this.queue.splice(0, take);
      const batch = taken.map((q) => q.frame);
      const times: BatchTimes | undefined = ingestTrace()
        ? {
            receivedMs: taken[0]!.receivedMs,
            lastReceivedMs: taken[taken.length - 1]!.receivedMs,
            submittedMs: performance.now(),
          }
        : undefined;
      this.queuedBytes -= bytes;
      if (
        this.paused &&
        this.queue.length < HIGH_WATER_FRAMES / 2 &&
        this.queuedBytes < HIGH_WATER_BYTES / 2
      ) {
        this.paused = false;
        this.ws.resume();
      }
      try {
        const outcomes = await groupCommitterFor(pool()).submit(
          this.principal,
          batch,
          bytes,
          times,
        );
        const ids: string[] = [];
        for (const [i, o] of outcomes.entries()) {
          if (o.ok) {
            ids.push(o.id);
            const frame = batch[i]!;
            if (frame.type === "plan.propose") this.watchPlan(frame.plan);
          } else {
            t.framesRejected.inc({ transport: "ws", code: o.code });
            this.send({
              v: PROTOCOL_VERSION,
              type: "error",
              id: o.id,
              code: o.code,
              message: o.message,
            });
          }
        }
        if (ids.length) {
          t.framesAcked.inc({ transport: "ws" }, ids.length);
          this.send({ v: PROTOCOL_VERSION, type: "ack", ids });
          if (times) ingestTrace()?.batch(times, ids.length, performance.now());
        }
      } catch (err) {
        if (!isDatabaseOutage(err)) {
          // Not an outage (applyGroup isolates those itself; this is a bug of ours): answer the
          // frames so the worker moves on instead of resending them forever.
          this.opts.log.error(
            { err, host: this.principal.hostName },
            "ingest batch failed (frames rejected)",
          );
          for (const frame of batch) {
            t.framesRejected.inc({ transport: "ws", code: "internal_error" });
            this.send({
              v: PROTOCOL_VERSION,
              type: "error",
              id: frame.id,
              code: "internal_error",
              message: "the server could not apply this frame (not retried)",
            });
          }
          continue;
        }
        // The database is unreachable: nothing was committed, so we ack nothing and the worker
        // resends after reconnecting. Close so it does.
        this.opts.log.error(
          { err: describeOutage(err), host: this.principal.hostName },
          "ingest batch failed: database unavailable",
        );
        this.queue = [];
        this.queuedBytes = 0;
        this.ws.close(1011, "database unavailable; resend unacknowledged frames");
        return;
      }
    }
  }

  /**
   * The proposer waits on this socket: deliver the decision as soon as it exists — now, if the
   * plan was decided while the worker was disconnected, or when any app instance records it.
   * Subscribing before checking means a decision made in between is never missed.
   */
  private watchPlan(key: string): void {
    if (this.watchedPlans.size === 0) liveBus().on("topic", this.onTopic);
    this.watchedPlans.add(key);
    void this.deliverDecision(key);
  }

  private async deliverDecision(key: string): Promise<void> {
    try {
      const decision = await planDecision(pool(), key);
      if (!decision || !this.watchedPlans.delete(key)) return;
      if (this.watchedPlans.size === 0) liveBus().off("topic", this.onTopic);
      this.send(decision);
    } catch (err) {
      this.opts.log.warn({ err, plan: key }, "could not deliver a plan decision");
    }
  }

  private send(frame: ServerFrame): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(stringifyJson(frame));
  }
}

function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

/**
 * The message as text. The socket skips ws's own UTF-8 check (which closes with 1007) so that
 * invalid UTF-8 gets the documented `invalid_json` answer instead.
 * @throws Error when the bytes are not valid UTF-8.
 */
function rawToString(data: RawData, _isBinary: boolean): string {
  const buf = Array.isArray(data)
    ? Buffer.concat(data)
    : data instanceof ArrayBuffer
      ? Buffer.from(data)
      : data;
  if (!isUtf8(buf)) throw new Error("not valid UTF-8");
  return buf.toString("utf8");
}
