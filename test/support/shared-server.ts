import http from "node:http";
import type { AddressInfo } from "node:net";
import { inject } from "vitest";

import { cloneTemplateDatabase } from "./db";
import { startTestServer, type TestServer } from "./server";

/** The worker's shared Pitwall server: its base URL, port and the database it serves. */
export interface SharedTestServer {
  url: string;
  port: number;
  /** URL of the server's database (a clone of the migrated template, shared with other files). */
  databaseUrl: string;
}

/**
 * The Pitwall server this vitest worker shares with the other test files it runs: started on
 * first use (production build, default environment, its own clone of the template database) and
 * stopped when the run ends. Files that share it must use unique data (random run keys, host
 * names, emails), never list or count the whole database, and never stop, kill or reconfigure the
 * server; a file that needs any of that starts its own with `startTestServer`.
 * @throws Error with the server's output when it cannot start (e.g. a stale production build).
 */
export async function withTestServer(): Promise<SharedTestServer> {
  const broker = inject("testServerBroker");
  // One server per worker: files of one worker run one after another, so a server sees the load
  // of one file at a time, as when every file had its own.
  const worker = process.env.VITEST_POOL_ID ?? "1";
  const res = await fetch(`${broker}/shared/${encodeURIComponent(worker)}`, { method: "POST" });
  const text = await res.text();
  if (!res.ok) throw new Error(`shared test server: ${text}`);
  return JSON.parse(text) as SharedTestServer;
}

/** The broker the global setup runs: hands out one server per worker key; `close` stops them all. */
export interface TestServerBroker {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the broker (an HTTP server on 127.0.0.1, in the vitest main process, so the servers it
 * starts live as long as the run) for the PostgreSQL of `adminUrl`.
 */
export async function startTestServerBroker(adminUrl: string): Promise<TestServerBroker> {
  const servers = new Map<string, Promise<{ server: TestServer; databaseUrl: string }>>();
  const start = async () => {
    const databaseUrl = await cloneTemplateDatabase(adminUrl);
    return { server: await startTestServer({ databaseUrl }), databaseUrl };
  };
  const listener = http.createServer((req, res) => {
    const m = /^\/shared\/([^/]+)$/.exec(req.url ?? "");
    if (req.method !== "POST" || !m) {
      res.writeHead(404).end("not found");
      return;
    }
    const key = decodeURIComponent(m[1]!);
    let started = servers.get(key);
    if (!started) {
      started = start();
      servers.set(key, started);
      // A failed start is not kept: the next file asks again.
      started.catch(() => servers.delete(key));
    }
    started.then(
      ({ server, databaseUrl }) =>
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            url: server.url,
            port: server.port,
            databaseUrl,
          } satisfies SharedTestServer),
        ),
      (err: unknown) => res.writeHead(500).end(err instanceof Error ? err.message : String(err)),
    );
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      const all = await Promise.allSettled([...servers.values()]);
      await Promise.all(
        all.map((s) => (s.status === "fulfilled" ? s.value.server.stop() : undefined)),
      );
    },
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    testServerBroker: string;
  }
}
