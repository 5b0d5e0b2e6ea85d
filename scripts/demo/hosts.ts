import type { PitwallSocket } from "@/lib/client";
import type { HostFacts } from "@/lib/protocol";

import type { DemoContext, DemoHost, GpuReading } from "./context";
import type { Rng } from "./rng";

/**
 * Heartbeats of the simulated hosts, every 10 real seconds (as `pitwall heartbeat --interval 10`
 * would send them): GPU utilisation, memory, temperature and power follow what the simulated
 * workers on each host are doing (a crashed worker's GPU drops to 0 %, a hung one idles with
 * its memory still allocated).
 */

/** One simulated host. */
export interface HostSpec {
  host: DemoHost;
  cpuCount: number;
  ramTotalBytes: number;
  diskTotalBytes: number;
  /** Current GPU readings (all GPUs of the host, by index). */
  gpus(rng: Rng): GpuReading[];
  diskFreeBytes(): number;
}

/** Heartbeat period in real seconds. */
export const HEARTBEAT_INTERVAL_S = 10;

/** See the module comment. */
export class HeartbeatDemo {
  private readonly sockets = new Map<DemoHost, PitwallSocket>();
  private nextAtMs = 0;

  constructor(
    private readonly ctx: DemoContext,
    private readonly hosts: HostSpec[],
  ) {}

  /** Opens one connection per host (its node agent) and sends the first heartbeats. */
  start(): void {
    for (const h of this.hosts) this.sockets.set(h.host, this.ctx.connect(h.host, "node-agent"));
    this.tick(this.ctx.now());
  }

  /** Sends every host's heartbeat when one is due. */
  tick(nowMs: number): void {
    if (nowMs < this.nextAtMs) return;
    this.nextAtMs = nowMs + HEARTBEAT_INTERVAL_S * 1000;
    for (const h of this.hosts) {
      const gpus = h.gpus(this.ctx.rng);
      const busy = gpus.length ? gpus.reduce((n, g) => n + g.utilPct, 0) / gpus.length : 0;
      const cpuPct = Math.round(Math.min(100, 6 + busy * 0.35 + this.ctx.rng() * 4));
      const facts: HostFacts = {
        gpus,
        cpuPct,
        cpuCount: h.cpuCount,
        loadAvg1: Math.round(((cpuPct / 100) * h.cpuCount + this.ctx.rng()) * 100) / 100,
        ramTotalBytes: h.ramTotalBytes,
        ramUsedBytes: Math.round(h.ramTotalBytes * (0.18 + busy * 0.004 + this.ctx.rng() * 0.01)),
        diskTotalBytes: h.diskTotalBytes,
        diskFreeBytes: h.diskFreeBytes(),
        hostname: h.host,
      };
      this.sockets
        .get(h.host)
        ?.send({ type: "heartbeat", ts: nowMs, intervalS: HEARTBEAT_INTERVAL_S, facts });
    }
  }
}
