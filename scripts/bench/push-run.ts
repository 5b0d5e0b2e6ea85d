/**
 * Shared by the read scenarios (series-cold, live-browser): fills a training run THROUGH INGEST,
 * the way a trainer's SDK does (`run.start`, then `run.metrics` frames of about 1,000 points over
 * /ws/ingest, a few frames in flight, acks after COMMIT), so its storage is what ingest makes of
 * it (blocks, rows, tiers), not a shape loaded by SQL. Not a scenario itself (no `scenario` export).
 */
import WebSocket from "ws";

/** What to push: `keys` keys × `steps` steps, step-major, with a spike and NaN points that reads must keep. */
export interface PushRunOptions {
  url: string;
  token: string;
  runKey: string;
  name: string;
  keys: readonly string[];
  steps: number;
  /** Points per frame (rounded to whole steps). */
  pointsPerFrame?: number;
  /** Frames in flight. */
  window?: number;
}

/** Value of key index `k` at `step`: a decaying curve with noise, a spike of 1000 at SPIKE_AT×steps on key 0, NaN every 50,021 steps on key 1. */
export function pushedValue(k: number, step: number, steps: number): number {
  if (k === 0 && step === Math.floor(steps * SPIKE_AT)) return 1000;
  if (k === 1 && step % 50_021 === 7) return NaN;
  return Math.round((2 / (1 + step / 5000) + 0.05 * Math.sin(step + k)) * 1e6) / 1e6;
}
/** Where the spike sits, as a share of the steps. */
export const SPIKE_AT = 0.61803;

/**
 * Pushes the run; resolves with its points/s once every frame is acked.
 * @throws Error when a frame is rejected or the socket closes early.
 */
export async function pushRun(o: PushRunOptions): Promise<number> {
  const stepsPerFrame = Math.max(1, Math.floor((o.pointsPerFrame ?? 1000) / o.keys.length));
  const frames = Math.ceil(o.steps / stepsPerFrame);
  const window = o.window ?? 4;
  const ws = new WebSocket(`${o.url.replace(/^http/, "ws")}/ws/ingest`, {
    headers: { authorization: `Bearer ${o.token}` },
    perMessageDeflate: false,
  });
  await new Promise<void>((resolve, reject) =>
    ws.once("open", () => resolve()).once("error", reject),
  );
  const t0 = performance.now();
  try {
    return await new Promise<number>((resolve, reject) => {
      let next = -1; // -1: run.start
      let acked = 0;
      const inFlight = new Set<string>();
      const pump = () => {
        while (inFlight.size < window && next < frames) {
          const id = `${o.runKey}:${next}`;
          inFlight.add(id);
          if (next === -1)
            ws.send(
              JSON.stringify({
                v: 1,
                id,
                type: "run.start",
                run: o.runKey,
                name: o.name,
                kind: "training",
                total: o.steps,
                unit: "steps",
              }),
            );
          else {
            let pts = "";
            for (
              let s = next * stepsPerFrame;
              s < Math.min(o.steps, (next + 1) * stepsPerFrame);
              s++
            )
              for (let k = 0; k < o.keys.length; k++) {
                const v = pushedValue(k, s, o.steps);
                pts += `${pts ? "," : ""}{"key":${JSON.stringify(o.keys[k])},"step":${s},"value":${Number.isNaN(v) ? '"NaN"' : v}}`;
              }
            ws.send(
              `{"v":1,"id":"${id}","type":"run.metrics","run":${JSON.stringify(o.runKey)},"points":[${pts}]}`,
            );
          }
          next++;
          if (next === 0) break; // wait for run.start's ack before the first metrics
        }
      };
      ws.on("message", (data) => {
        const msg = JSON.parse(data.toString()) as {
          type: string;
          ids?: string[];
          code?: string;
          message?: string;
        };
        if (msg.type === "error")
          return reject(new Error(`${o.runKey}: ${msg.code}: ${msg.message}`));
        for (const id of msg.ids ?? []) if (inFlight.delete(id)) acked++;
        if (acked === frames + 1)
          resolve((o.steps * o.keys.length) / ((performance.now() - t0) / 1000));
        else pump();
      });
      ws.on("close", () =>
        reject(new Error(`${o.runKey}: socket closed after ${acked} of ${frames + 1} acks`)),
      );
      pump();
    });
  } finally {
    ws.removeAllListeners("close");
    ws.close();
  }
}
