import http from "node:http";
import type { Duplex } from "node:stream";
import next from "next";
import { WebSocketServer, type WebSocket } from "ws";
import { MAX_FRAME_BYTES } from "@/lib/protocol";
import { stampClientAddress } from "@/lib/server/auth/client-address";
import { authenticateLiveUpgrade } from "@/lib/server/auth/live";
import { LiveSessionGuard } from "@/lib/server/auth/live-sessions";
import { startCredentialWatch } from "@/lib/server/auth/revocation";
import { closeDb, databaseUrl, pool } from "@/lib/server/db";
import type { Env } from "@/lib/server/env";
import { AuthError } from "@/lib/server/errors";
import { authenticateWorker } from "@/lib/server/ingest/service";
import { IngestConnection } from "@/lib/server/ingest/socket";
import { IngestTokenGuard } from "@/lib/server/ingest/token-guard";
import { publisherFor } from "@/lib/server/live/coalescing-publisher";
import { LiveHub } from "@/lib/server/live/hub";
import { startMaintenance } from "@/lib/server/maintenance";
import { startNotifier } from "@/lib/server/notify/notifier";
import type { Logger } from "@/lib/server/logger";

/** A running Pitwall server. */
export interface RunningServer {
  port: number;
  /** Graceful stop: refuse new sockets, commit queued frames, close sockets, close Next and DB. */
  close(): Promise<void>;
}

/** How often sockets are pinged; a peer that missed one ping is terminated. */
const PING_INTERVAL_MS = 30_000;

/**
 * Starts Next.js and both WebSocket endpoints on one HTTP port:
 * `/ws/ingest` (workers, bearer token checked during the upgrade: 401 and no socket on failure;
 * messages over 1 MiB close the socket with 1009), `/ws/live` (browsers), Next's own upgrades
 * (dev HMR) handed to Next; any other upgrade is refused.
 * @throws when Next cannot start or the port is taken.
 */
export async function startServer(env: Env, log: Logger): Promise<RunningServer> {
  const dev = env.NODE_ENV === "development";
  const app = next({ dev, hostname: env.HOST, port: env.PORT, dir: import.meta.dirname });
  await app.prepare();
  const handle = app.getRequestHandler();
  const nextUpgrade = app.getUpgradeHandler();

  const hub = new LiveHub(databaseUrl(), log);
  await hub.start();

  const ingestWss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const liveWss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const connections = new IngestTokenGuard();
  const liveSessions = new LiveSessionGuard();

  const server = http.createServer((req, res) => {
    stampClientAddress(req, env.PITWALL_TRUSTED_PROXIES);
    handle(req, res).catch((err: unknown) => {
      log.error({ err, url: req.url }, "request failed");
      if (!res.headersSent) res.writeHead(500).end("internal error");
    });
  });

  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    if (pathname === "/ws/ingest") {
      authenticateWorker(req.headers.authorization)
        .then((principal) => {
          ingestWss.handleUpgrade(req, socket, head, (ws) => {
            const conn = new IngestConnection(track(ws), principal, { batchFrames: env.PITWALL_INGEST_BATCH_FRAMES, log });
            connections.add(conn);
            ws.on("close", () => connections.remove(conn));
            log.info({ host: principal.hostName }, "worker connected");
          });
        })
        .catch((err: unknown) => {
          const status = err instanceof AuthError ? "401 Unauthorized" : "503 Service Unavailable";
          const body = err instanceof AuthError ? err.message : "authentication unavailable";
          if (!(err instanceof AuthError)) log.error({ err }, "ingest upgrade failed");
          refuse(socket, status, body);
        });
    } else if (pathname === "/ws/live") {
      // Browsers: the session cookie is checked during the upgrade; 401/403 and no socket without one.
      authenticateLiveUpgrade(req.headers)
        .then((result) => {
          if (!result.ok) return refuse(socket, result.status, result.message);
          liveWss.handleUpgrade(req, socket, head, (ws) => {
            liveSessions.add(ws, req.headers, result.viewer.id);
            hub.add(track(ws));
          });
        })
        .catch((err: unknown) => {
          log.error({ err }, "live upgrade failed");
          refuse(socket, "503 Service Unavailable", "authentication unavailable");
        });
    } else if (pathname.startsWith("/_next/")) {
      void nextUpgrade(req, socket, head);
    } else {
      socket.destroy();
    }
  });

  const heartbeat = setInterval(() => {
    for (const wss of [ingestWss, liveWss]) for (const ws of wss.clients) pingOrTerminate(ws);
  }, PING_INTERVAL_MS);
  heartbeat.unref();
  // A revoked token or a disabled person loses its sockets at once, on every instance; a browser
  // signed out or expired elsewhere within PITWALL_LIVE_RECHECK_S.
  const stopCredentialWatch = startCredentialWatch({ live: liveSessions, ingest: connections, recheckS: env.PITWALL_LIVE_RECHECK_S, log });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(env.PORT, env.HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  log.info({ port, dev }, `Pitwall listening on http://localhost:${port}`);

  const notifier = startNotifier({
    pool: pool(),
    log,
    webhookUrl: env.PITWALL_WEBHOOK_URL,
    intervalMs: env.PITWALL_NOTIFY_INTERVAL_MS,
    publicUrl: env.PITWALL_PUBLIC_URL ?? `http://localhost:${port}`,
  });
  const stopMaintenance = startMaintenance(pool(), log);

  let closing: Promise<void> | null = null;
  return {
    port,
    close: () =>
      (closing ??= (async () => {
        clearInterval(heartbeat);
        stopCredentialWatch();
        notifier.stop();
        stopMaintenance();
        server.close();
        // Commit what workers already sent before saying goodbye, so their acks are not lost
        // work: anything still unacknowledged after close is resent by the worker.
        await Promise.allSettled(connections.all().map((c) => c.drain()));
        await publisherFor(pool()).flushed();
        for (const ws of ingestWss.clients) ws.close(1001, "server shutting down");
        await hub.close();
        server.closeAllConnections();
        await app.close();
        await closeDb();
      })()),
  };
}

const alive = new WeakMap<WebSocket, boolean>();

/** Marks a socket alive now and on every pong. */
function track(ws: WebSocket): WebSocket {
  alive.set(ws, true);
  ws.on("pong", () => alive.set(ws, true));
  return ws;
}

/** A socket that has not answered the previous ping is dead (half-open TCP): drop it. */
function pingOrTerminate(ws: WebSocket): void {
  if (alive.get(ws) === false) {
    ws.terminate();
    return;
  }
  alive.set(ws, false);
  ws.ping();
}

function refuse(socket: Duplex, status: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
