import type { ClientFrameInput, ErrorCode, PROTOCOL_VERSION } from "@/lib/protocol";

import type { BackoffOptions, Clock } from "./clock";
import type { ServerUrls } from "./server-urls";

/** Types, options and errors of the worker SDK's WebSocket client (lib/client/socket.ts). */

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A frame as given to {@link PitwallSocket.send}: `v` and `id` may be left out (filled in). */
export type OutgoingFrame = DistributiveOmit<ClientFrameInput, "v" | "id"> & {
  v?: typeof PROTOCOL_VERSION;
  id?: string;
};

/**
 * Codes the client itself settles a frame with: `frame_too_large` (over 1 MiB, never sent) and
 * `gave_up` (the server closed the socket with 1011 `giveUpAfter` times in a row while this frame
 * was the oldest unacknowledged one: it is dropped so the frames behind it move on).
 */
export type ClientRejectionCode = "frame_too_large" | "gave_up";

/** A frame the server (or the client, for oversize or given-up frames) refused; never resent. */
export interface FrameRejection {
  /** The frame's id; null when the server could not read one. */
  id: string | null;
  /** A server error code (docs/protocol.md; a newer server may send codes this client does not know) or a {@link ClientRejectionCode}. */
  code: ErrorCode | ClientRejectionCode | (string & {});
  message: string;
}

/** Why a connection ended; `retryInMs` is the backoff delay before the next attempt. */
export interface DisconnectInfo {
  /** WebSocket close code (1006 = dropped without a close frame), null if it never opened. */
  code: number | null;
  reason: string;
  error?: Error;
  retryInMs: number;
  /** The `/ws/ingest` URL of the connection that ended. */
  url: string;
  /** The `/ws/ingest` URL of the next attempt (the next in the list; the same when there is one). */
  nextUrl: string;
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
  /**
   * Pitwall base URL (`http://host:8080`; `ws://…/ws/ingest` works too), or several instances
   * sharing one PostgreSQL, as a list or comma-separated (`http://a:8080,http://b:8080`): after a
   * connection ends or fails the client tries the next one, with the same backoff.
   */
  url: ServerUrls;
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
  /**
   * Consecutive 1011 closes (server error) while the same frame is the oldest unacknowledged one,
   * sent on that connection, after which the client gives up on that frame (default 5; 0 never).
   */
  giveUpAfter?: number;
  /** Where the one line about a given-up frame goes (default console.warn). */
  warn?: (line: string) => void;
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
  /** Frames settled as rejected: by the server, or by the client (oversize, given up). */
  rejected: number;
  /** Frames the client gave up on after repeated 1011 closes (counted in `rejected` too). */
  gaveUp: number;
  /** Frames not yet settled (in memory and spool). */
  pending: number;
  /** Connections opened after the first. */
  reconnects: number;
  connected: boolean;
}

/** Thrown by `flush` when frames are still unsettled after its timeout. */
export class FlushTimeoutError extends Error {
  constructor(
    readonly pending: number,
    timeoutMs: number,
  ) {
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
