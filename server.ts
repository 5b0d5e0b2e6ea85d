import http from "node:http";
import type { Duplex } from "node:stream";
import next from "next";
import { WebSocketServer, type WebSocket } from "ws";

import { MAX_FRAME_BYTES } from "@/lib/protocol";
import { stampClientAddress } from "@/lib/server/auth/client-address";
import { authenticateLiveUpgrade } from "@/lib/server/auth/live";
import { LiveSessionGuard } from "@/lib/server/auth/live-sessions";
import { startCredentialWatch } from "@/lib/server/auth/revocation";
import { recentDatabaseOutage } from "@/lib/server/database/outage-mark";
import { closeDb, databaseUrl, pool } from "@/lib/server/db";
import type { Env } from "@/lib/server/env";
import { AuthError } from "@/lib/server/errors";
import { inboxPolicyOf } from "@/lib/server/inbox-policy";
import { startIngestTrace } from "@/lib/server/ingest-trace";
import { authenticateWorker } from "@/lib/server/ingest/service";
import { IngestConnection } from "@/lib/server/ingest/socket";
import { IngestTokenGuard } from "@/lib/server/ingest/token-guard";
import { publisherFor } from "@/lib/server/live/coalescing-publisher";
import { LiveHub } from "@/lib/server/live/hub";
import { routeConsoleToLogger, type Logger } from "@/lib/server/logger";
import { startMaintenance } from "@/lib/server/maintenance";
import { startMetricFold } from "@/lib/server/metric-store";
import { startNotifier } from "@/lib/server/notify/notifier";
import { guardRequest, hasNulByte } from "@/lib/server/request-guard";

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
  // Every line the process writes is JSON and rate-limited (Next prints errors with console.error).
  routeConsoleToLogger(log);
  const app = next({ dev, hostname: env.HOST, port: env.PORT, dir: import.meta.dirname });
  await app.prepare();
  const handle = app.getRequestHandler();
  const nextUpgrade = app.getUpgradeHandler();

  const hub = new LiveHub(databaseUrl(), log);
  await hub.start();

  // Ingest: twice the frame limit reaches IngestConnection, which answers `frame_too_large` and
  // closes with 1009 (beyond that ws closes with 1009 itself); UTF-8 is checked there too, so
  // invalid UTF-8 gets `invalid_json` rather than a bare 1007 close.
  const ingestWss = new WebSocketServer({
    noServer: true,
    maxPayload: 2 * MAX_FRAME_BYTES,
    skipUTF8Validation: true,
  });
  // Live (browsers): ws closes with 1007 on invalid UTF-8 and 1009 over 64 KiB (docs/protocol.md).
  const liveWss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  for (const wss of [ingestWss, liveWss])
    wss.on("error", (err) => log.warn({ err }, "websocket server error"));
  const connections = new IngestTokenGuard();
  const liveSessions = new LiveSessionGuard();

  const server = http.createServer((req, res) => {
    // Body limits, NUL bytes and anti-framing headers for every route (request-guard.ts).
    if (!guardRequest(req, res)) return;
    answerOutagesWith503(res);
    stampClientAddress(req, env.PITWALL_TRUSTED_PROXIES);
    handle(req, res).catch((err: unknown) => {
      log.error({ err, url: req.url }, "request failed");
      if (!res.headersSent) res.writeHead(500).end("internal error");
    });
  });

  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // A peer resetting while its upgrade is being authenticated must not raise an uncaught error.
    socket.on("error", () => socket.destroy());
    if (hasNulByte(req.url ?? ""))
      return refuse(socket, "400 Bad Request", "the URL holds a NUL byte (%00)");
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    if (pathname === "/ws/ingest") {
      authenticateWorker(req.headers.authorization)
        .then((principal) => {
          ingestWss.handleUpgrade(req, socket, head, (ws) => {
            const conn = new IngestConnection(track(ws, log), principal, {
              batchFrames: env.PITWALL_INGEST_BATCH_FRAMES,
              log,
            });
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
            hub.add(track(ws, log));
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
  const stopCredentialWatch = startCredentialWatch({
    live: liveSessions,
    ingest: connections,
    recheckS: env.PITWALL_LIVE_RECHECK_S,
    log,
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(env.PORT, env.HOST, () => resolve());
  });
  server.on("error", (err) => log.error({ err }, "http server error"));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  log.info({ port, dev }, `Pitwall listening on http://localhost:${port}`);

  const notifier = startNotifier({
    pool: pool(),
    log,
    webhookUrl: env.PITWALL_WEBHOOK_URL,
    intervalMs: env.PITWALL_NOTIFY_INTERVAL_MS,
    publicUrl: env.PITWALL_PUBLIC_URL ?? `http://localhost:${port}`,
    inboxPolicy: inboxPolicyOf(env),
  });
  const stopMaintenance = startMaintenance(pool(), log);
  // Folds small metric batches (MetricPending) into the store; its first fold resumes one a crash interrupted.
  if (env.PITWALL_INGEST_TRACE) startIngestTrace(env.PITWALL_INGEST_TRACE);
  const metricFold = startMetricFold(pool(), log);

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
        await metricFold.stop();
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

/** Protocol errors (bad UTF-8, oversized or malformed frames, resets) seen per minute, for rate-limited logging. */
let wsErrors = { minute: 0, count: 0 };

/**
 * Marks a socket alive now and on every pong, and gives it an `error` listener: ws emits `error`
 * for a peer's protocol violation (invalid UTF-8, a message over maxPayload, a bad opcode) and
 * then closes the socket with the matching code (1007, 1009, 1002); without a listener that
 * event would be an uncaught exception. Logged at most 10 times a minute.
 */
function track(ws: WebSocket, log: Logger): WebSocket {
  alive.set(ws, true);
  ws.on("pong", () => alive.set(ws, true));
  ws.on("error", (err: Error & { code?: string }) => {
    const minute = Math.floor(Date.now() / 60_000);
    if (wsErrors.minute !== minute) wsErrors = { minute, count: 0 };
    if (++wsErrors.count <= 10)
      log.warn({ code: err.code, message: err.message }, "websocket closed on a protocol error");
  });
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

/**
 * A page (or any route) that failed while the database was unreachable is answered 503 with
 * Retry-After, not 500: Next renders the error page with 500 and only its status can be changed
 * here, so a 500 written within 5 s of an outage seen by this process (a route's error, a logged
 * outage error, a failed health probe: database/outage-mark.ts) becomes 503. Node writes implicit
 * headers through writeHead too, so this catches both ways of setting the status.
 */
function answerOutagesWith503(res: http.ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (statusCode === 500 && recentDatabaseOutage()) {
      statusCode = 503;
      res.statusMessage = "Service Unavailable";
      if (!res.headersSent) res.setHeader("retry-after", "5");
      if (typeof rest[0] === "string") rest[0] = "Service Unavailable";
    }
    return (writeHead as (...a: unknown[]) => http.ServerResponse).call(this, statusCode, ...rest);
  } as typeof res.writeHead;
}

function refuse(socket: Duplex, status: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
