import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";

/**
 * Prometheus metrics of this process, served as text on `GET /metrics`. Kept on `globalThis`
 * so that server.ts and Next's bundled route handlers count into the same registry.
 */
interface Telemetry {
  registry: Registry;
  framesReceived: Counter<"transport">;
  framesAcked: Counter<"transport">;
  framesRejected: Counter<"transport" | "code">;
  liveSubscribers: Gauge;
  ingestSockets: Gauge;
}

const g = globalThis as typeof globalThis & { __pitwallTelemetry?: Telemetry };

/** The process-wide metrics (created on first use). */
export function telemetry(): Telemetry {
  if (!g.__pitwallTelemetry) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: "pitwall_process_" });
    g.__pitwallTelemetry = {
      registry,
      framesReceived: new Counter({
        name: "pitwall_frames_received_total",
        help: "Frames received from workers",
        labelNames: ["transport"],
        registers: [registry],
      }),
      framesAcked: new Counter({
        name: "pitwall_frames_acked_total",
        help: "Frames committed and acknowledged (including duplicates)",
        labelNames: ["transport"],
        registers: [registry],
      }),
      framesRejected: new Counter({
        name: "pitwall_frames_rejected_total",
        help: "Frames rejected, by error code",
        labelNames: ["transport", "code"],
        registers: [registry],
      }),
      liveSubscribers: new Gauge({
        name: "pitwall_live_subscribers",
        help: "Browser sockets connected to /ws/live",
        registers: [registry],
      }),
      ingestSockets: new Gauge({
        name: "pitwall_ingest_sockets",
        help: "Worker sockets connected to /ws/ingest",
        registers: [registry],
      }),
    };
  }
  return g.__pitwallTelemetry;
}
