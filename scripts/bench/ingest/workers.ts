/**
 * The `ingest` scenario's load generators: Pitwall workers on /ws/ingest (protocol v1, acks after
 * COMMIT) and Prometheus Pushgateway clients (HTTP POST of the text exposition format). Each
 * keeps at most `window` frames (pushes) in flight and reports what was acknowledged.
 */
import http from "node:http";
import { performance } from "node:perf_hooks";
import WebSocket from "ws";

import { frameText, pushgatewayBody, type IngestOptions } from "./workload";

/** What one worker got back. */
export interface WorkerResult {
  framesAcked: number;
  duplicateAcks: number;
  errors: string[];
  /** performance.now() of the last ack. */
  lastAckAt: number;
  /** Per frame, ws.send → ack, ms. */
  latenciesMs: number[];
}

/** A connected worker whose run is started; `go()` pushes its frames. */
export interface Worker {
  runKey: string;
  go(): Promise<WorkerResult>;
  close(): void;
}

/**
 * Connects worker `w`, sends `run.start` for run `runKey` and waits for its ack.
 * @throws Error when the upgrade is refused, the socket closes or run.start is rejected.
 */
export async function openWorker(
  opts: IngestOptions,
  w: number,
  wsUrl: string,
  token: string,
  runKey: string,
): Promise<Worker> {
  const ws = new WebSocket(`${wsUrl}/ws/ingest`, {
    headers: { authorization: `Bearer ${token}` },
    perMessageDeflate: false,
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) =>
      reject(new Error(`worker ${w}: upgrade refused with HTTP ${res.statusCode}`)),
    );
  });
  let onAck: (ids: string[], at: number) => void = () => undefined;
  let onError: (id: string | null, msg: string) => void = () => undefined;
  let onClosed: (why: string) => void = () => undefined;
  ws.on("message", (data) => {
    const at = performance.now();
    const msg = JSON.parse(data.toString()) as {
      type: string;
      ids?: string[];
      id?: string | null;
      code?: string;
      message?: string;
    };
    if (msg.type === "ack") onAck(msg.ids ?? [], at);
    else if (msg.type === "error") onError(msg.id ?? null, `${msg.code}: ${msg.message}`);
  });
  ws.on("close", (code, reason) => onClosed(`${code} ${reason.toString()}`));
  ws.on("error", (err) => onClosed(err.message));

  const startId = `${runKey}:start`;
  await new Promise<void>((resolve, reject) => {
    onAck = (ids) => ids.includes(startId) && resolve();
    onError = (_id, m) => reject(new Error(`worker ${w}: run.start rejected: ${m}`));
    onClosed = (why) =>
      reject(new Error(`worker ${w}: socket closed (${why}) before run.start was acked`));
    ws.send(
      JSON.stringify({
        v: 1,
        id: startId,
        type: "run.start",
        run: runKey,
        name: `Ingest bench, worker ${w}`,
        kind: "training",
        config: { benchmark: "scripts/bench/ingest.ts" },
      }),
    );
  });

  const go = () =>
    new Promise<WorkerResult>((resolve, reject) => {
      const result: WorkerResult = {
        framesAcked: 0,
        duplicateAcks: 0,
        errors: [],
        lastAckAt: 0,
        latenciesMs: [],
      };
      const pending = new Map<string, number>();
      let next = 0;
      let settled = 0;
      const pump = () => {
        while (pending.size < opts.window && next < opts.frames) {
          const id = `${runKey}:f${next}`;
          const text = frameText(opts, w, next++, runKey, id);
          pending.set(id, performance.now());
          ws.send(text);
        }
        if (settled === opts.frames) resolve(result);
      };
      onAck = (ids, at) => {
        for (const id of ids) {
          const sentAt = pending.get(id);
          if (sentAt === undefined) {
            result.duplicateAcks++;
            continue;
          }
          pending.delete(id);
          result.latenciesMs.push(at - sentAt);
          result.framesAcked++;
          result.lastAckAt = at;
          settled++;
        }
        pump();
      };
      onError = (id, m) => {
        result.errors.push(`${id ?? "(no id)"}: ${m}`);
        if (id && pending.delete(id)) settled++;
        pump();
      };
      onClosed = (why) =>
        reject(
          new Error(
            `worker ${w}: socket closed (${why}) with ${opts.frames - settled} frames unsettled`,
          ),
        );
      pump();
    });
  return { runKey, go, close: () => ws.terminate() };
}

/**
 * Pushgateway client `w`: POSTs `opts.frames` bodies of `opts.points` distinct series to
 * `/metrics/job/bench/instance/w<w>` on `baseUrl`, one request in flight (keep-alive), and
 * resolves with performance.now() of the last response.
 * @throws Error on a non-2xx answer or a network error.
 */
export async function pushClient(opts: IngestOptions, w: number, baseUrl: string): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(`/metrics/job/bench/instance/w${w}`, baseUrl);
  try {
    let last = 0;
    for (let f = 0; f < opts.frames; f++) {
      const body = pushgatewayBody(opts, w, f);
      await new Promise<void>((resolve, reject) => {
        const req = http.request(
          url,
          {
            method: "POST",
            agent,
            headers: {
              "content-type": "text/plain; version=0.0.4",
              "content-length": Buffer.byteLength(body),
            },
          },
          (res) => {
            res.resume();
            res.once("end", () =>
              res.statusCode && res.statusCode < 300
                ? resolve()
                : reject(new Error(`pushgateway answered HTTP ${res.statusCode}`)),
            );
          },
        );
        req.once("error", reject);
        req.end(body);
      });
      last = performance.now();
    }
    return last;
  } finally {
    agent.destroy();
  }
}
