import { readFileSync } from "node:fs";
import http from "node:http";

/** Helpers of the security and fault suite (security.slow.test.ts): raw HTTP probes and its report table. */

/** One row of the suite's report: what was tried, where, and what came back. */
export interface ProbeRow {
  attack: string;
  routes: string;
  result: string;
}

/** The suite's report: rows added by each test, printed as a table at the end. */
export class ProbeTable {
  readonly rows: ProbeRow[] = [];

  /** Adds a row. */
  add(attack: string, routes: string[] | string, result: string): void {
    this.rows.push({ attack, routes: Array.isArray(routes) ? routes.join(" ") : routes, result });
  }

  /** The rows as a fixed-width text table. */
  render(): string {
    const head: ProbeRow = { attack: "attack", routes: "routes tried", result: "result" };
    const all = [head, ...this.rows];
    const w = (k: keyof ProbeRow) => Math.min(70, Math.max(...all.map((r) => r[k].length)));
    const line = (r: ProbeRow) =>
      `${r.attack.padEnd(w("attack"))} | ${r.routes.padEnd(w("routes"))} | ${r.result}`;
    return [
      line(head),
      `${"-".repeat(w("attack"))}-+-${"-".repeat(w("routes"))}-+-${"-".repeat(12)}`,
      ...this.rows.map(line),
    ].join("\n");
  }
}

/** Resident memory of a process, in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Outcome of {@link sendChunked}: the status (null when the connection closed first), bytes written, time taken. */
export interface ChunkedResult {
  status: number | null;
  sentBytes: number;
  ms: number;
  body: string;
}

/**
 * POSTs `totalBytes` of `fill` to `url` as a chunked body (no Content-Length), 64 KiB per chunk,
 * honouring backpressure, and stops sending once the server answers or closes. Gives up after
 * `timeoutMs` (default 60 s).
 */
export function sendChunked(
  url: string,
  totalBytes: number,
  headers: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<ChunkedResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = http.request(url, {
      method: "POST",
      headers: { ...headers, "transfer-encoding": "chunked" },
    });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    let status: number | null = null;
    let body = "";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, sentBytes: sent, ms: Date.now() - started, body });
    };
    const timer = setTimeout(finish, timeoutMs);
    req.on("response", (res) => {
      status = res.statusCode ?? null;
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", finish);
      res.on("error", finish);
    });
    req.on("error", finish);
    req.on("close", () => setTimeout(finish, 50));
    const pump = () => {
      while (!done && status === null && sent < totalBytes) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!done && status === null) req.end();
    };
    pump();
  });
}

/** Sends a request with a raw request target (no URL normalisation: `%00` stays as sent). */
export function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: target,
        headers: {
          ...headers,
          ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A TCP proxy in front of PostgreSQL whose link can be cut and restored (a database outage). */
export interface CuttableProxy {
  port: number;
  /** Drops every open connection and refuses new ones until {@link restore}. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Starts a {@link CuttableProxy} on a free loopback port forwarding to `target` (host:port). */
export async function startCuttableProxy(
  targetHost: string,
  targetPort: number,
): Promise<CuttableProxy> {
  const { default: net } = await import("node:net");
  let down = false;
  const sockets = new Set<import("node:net").Socket>();
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as import("node:net").AddressInfo).port;
  return {
    port,
    cut: () => {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore: () => void (down = false),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
