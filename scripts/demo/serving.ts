import type { PitwallSocket } from "@/lib/client";
import type { MetricPointInput } from "@/lib/protocol";
import { SERVING_KEYS as K } from "@/lib/serving/derive";
import { servingStallAfterS } from "@/lib/serving/stall";

import type { DemoContext, DemoWorker, GpuReading } from "./context";

/**
 * Serving telemetry of the SGLang engine the benchmark sweep on `ws-a6000` talks to, as
 * `pitwall scrape` would push it (run kind `serving`, step = scrape time in unix ms, every 5 real
 * seconds): requests running and queued, KV-cache usage, tok/s, TTFT / ITL p50 and p99 and the
 * accept length, following a daily load wave with noise.
 */

const INTERVAL_S = 5;

/** See the module comment. */
export class ServingDemo implements DemoWorker {
  readonly key: string;
  private socket: PitwallSocket | null = null;
  private nextAtMs = 0;
  private simS = 0;

  constructor(private readonly ctx: DemoContext) {
    this.key = `${ctx.keyPrefix}-serving`;
  }

  async start(): Promise<void> {
    const socket = this.ctx.connect("ws-a6000", "scraper");
    this.socket = socket;
    socket.send({
      type: "run.start",
      run: this.key,
      name: "SGLang Qwen3.6-27B @ ws-a6000:30000",
      kind: "serving",
      startedAt: this.ctx.now(),
      stallAfterS: servingStallAfterS(INTERVAL_S),
      tags: ["demo", "serving"],
      config: {
        url: "http://ws-a6000:30000/metrics",
        engineHost: "ws-a6000",
        intervalS: INTERVAL_S,
        engine: "sglang",
        model: "Qwen/Qwen3.6-27B",
      },
    });
    await socket.flush(30_000);
  }

  tick(simDtS: number, nowMs: number): void {
    this.simS += simDtS;
    if (!this.socket || nowMs < this.nextAtMs) return;
    this.nextAtMs = nowMs + INTERVAL_S * 1000;
    const rng = this.ctx.rng;
    const wave = 0.55 + 0.45 * Math.sin((this.simS / 86_400) * 2 * Math.PI * 6);
    const running = Math.max(1, Math.round(48 * wave + (rng() - 0.5) * 6));
    const queued = Math.max(
      0,
      Math.round(running > 40 ? (running - 40) * 1.5 + rng() * 3 : rng() * 1.2),
    );
    const outTokPerS = 18 * running ** 0.78 * (0.95 + rng() * 0.1);
    const ttftP50 = 85 + running * 6 + queued * 40 + rng() * 20;
    const itlP50 = 14 + running * 0.22 + rng() * 1.5;
    const values: Record<string, number> = {
      [K.up]: 1,
      [K.runningRequests]: running,
      [K.queuedRequests]: queued,
      [K.kvCacheUsage]: Math.min(0.98, 0.12 + running * 0.016 + rng() * 0.03),
      [K.genTokPerS]: outTokPerS * (0.97 + rng() * 0.06),
      [K.generationTokPerS]: outTokPerS,
      [K.promptTokPerS]: outTokPerS * (0.9 + rng() * 0.3),
      [K.ttftMsP50]: ttftP50,
      [K.ttftMsP99]: ttftP50 * (2.2 + rng() * 0.6),
      [K.itlMsP50]: itlP50,
      [K.itlMsP99]: itlP50 * (2.5 + rng() * 0.8),
      [K.acceptLength]: 3.1 + rng() * 0.5,
    };
    const points: MetricPointInput[] = Object.entries(values).map(([key, value]) => ({
      key,
      step: nowMs,
      value,
      ts: nowMs,
    }));
    this.socket.send({ type: "run.metrics", run: this.key, points });
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    if (!socket) return;
    socket.send({ type: "run.end", run: this.key, status: "cancelled", endedAt: this.ctx.now() });
    await socket.flush(10_000).catch(() => undefined);
  }

  gpus(): GpuReading[] {
    return [];
  }

  summary(): string {
    return "serving scraped";
  }
}
