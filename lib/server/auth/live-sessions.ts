import type { IncomingHttpHeaders } from "node:http";
import type { WebSocket } from "ws";

import { LIVE_SESSION_ENDED } from "@/lib/protocol/live";

import { authenticateLiveUpgrade } from "./live";

export { LIVE_SESSION_ENDED };

/** The request headers a credential check reads; the rest of the upgrade request is not kept. */
const KEPT_HEADERS = [
  "cookie",
  "authorization",
  "origin",
  "host",
  "x-forwarded-host",
  "x-forwarded-proto",
  "sec-fetch-site",
] as const;

/**
 * Keeps `/ws/live` honest after the upgrade: remembers the credentials each socket was opened
 * with and, on {@link LiveSessionGuard.sweep}, checks them again exactly as the upgrade did,
 * closing sockets whose session no longer holds (signed out, expired, person disabled, worker
 * token revoked) with {@link LIVE_SESSION_ENDED}. A database error skips the socket until the
 * next sweep rather than closing it. {@link LiveSessionGuard.closeViewer} is the immediate path,
 * driven by the credential events every instance hears (lib/server/auth/revocation.ts); the sweep
 * is the backstop.
 */
export class LiveSessionGuard {
  /** Per socket: the headers it was opened with and its viewer id (a user id, or `token:<id>`). */
  private readonly sockets = new Map<
    WebSocket,
    { headers: IncomingHttpHeaders; viewerId: string }
  >();

  /** Starts watching `ws`, opened by `viewerId` with the request `headers`; forgets it when it closes. */
  add(ws: WebSocket, headers: IncomingHttpHeaders, viewerId: string): void {
    const kept: Record<string, string | string[]> = {};
    for (const name of KEPT_HEADERS) {
      const value = headers[name];
      if (value !== undefined) kept[name] = value;
    }
    this.sockets.set(ws, { headers: kept, viewerId });
    ws.once("close", () => this.sockets.delete(ws));
  }

  /** Closes every socket of `viewerId` at once (its session ended or its token was revoked); returns how many. */
  closeViewer(viewerId: string): number {
    let closed = 0;
    for (const [ws, socket] of [...this.sockets]) {
      if (socket.viewerId !== viewerId || !this.sockets.delete(ws)) continue;
      ws.close(LIVE_SESSION_ENDED, "your session ended; sign in again");
      closed++;
    }
    return closed;
  }

  /** Re-checks every watched socket; resolves to how many were closed. */
  async sweep(): Promise<number> {
    let closed = 0;
    for (const [ws, { headers }] of [...this.sockets]) {
      let ok: boolean;
      try {
        ok = (await authenticateLiveUpgrade(headers)).ok;
      } catch {
        continue; // database unreachable: try again next sweep
      }
      if (!ok && this.sockets.delete(ws)) {
        ws.close(LIVE_SESSION_ENDED, "your session ended; sign in again");
        closed++;
      }
    }
    return closed;
  }

  /** How many sockets are watched. */
  get size(): number {
    return this.sockets.size;
  }
}
