/**
 * The `fleet` scenario's load (issue 22): what a real fleet sends. Each worker is one training
 * rank on its own socket and host token: one `run.metrics` frame per step with KEYS_PER_STEP keys
 * at `stepHz`, a `run.progress` every 2 s and a `heartbeat` every 10 s. Every minute a tenth of
 * the workers restart (the socket is dropped, a new boot id, `run.start` again, the last 50 steps
 * re-sent with new frame ids); 1 % of steps are sent after the next one (out of order).
 *
 * Latency is open-loop: from each frame's SCHEDULED send time (so a late generator or a slow
 * server both count) to the ack that lists its id; a step sent late on purpose (out of order) is
 * timed from the moment it was meant to go out. Frames are strings built by concatenation.
 */
import { performance } from "node:perf_hooks";
import WebSocket from "ws";

/** Keys per step frame: what a trainer logs per step (loss, lr, grad norm, per-position accuracies …). */
export const KEYS_PER_STEP = 30;
const KEYS = Array.from({ length: KEYS_PER_STEP }, (_, i) =>
  i === 0
    ? "loss"
    : i === 1
      ? "lr"
      : i === 2
        ? "grad_norm"
        : i < 10
          ? `acc/pos_${i - 3}`
          : i < 17
            ? `ploss/pos_${i - 10}`
            : `train/extra_${i - 17}`,
);
const RESEND_STEPS = 50;
const PROGRESS_EVERY_MS = 2000;
const HEARTBEAT_EVERY_MS = 10_000;

/** Where every worker's figures go: latencies (ms) and counts. */
export class FleetTally {
  latencies: number[] = [];
  /** The same latencies by frame kind (step, resend: a restarted worker's re-sent steps, progress, heartbeat). */
  latenciesByKind = new Map<FrameKind, number[]>();
  framesSent = 0;
  framesAcked = 0;
  /** Frames in flight on a socket that a restart dropped (re-sent as steps, not counted as acked). */
  framesAbandoned = 0;
  pointsSent = 0;
  pointsAcked = 0;
  rejected = new Map<string, number>();
  /** Acks whose frame was not in flight (a resent id acked twice): must stay 0. */
  unexpectedAcks = 0;
}

/** What a frame carries, for latencies by kind. */
export type FrameKind = "step" | "resend" | "progress" | "heartbeat";

/** Deterministic value of (worker, key index, step): resends carry the same numbers. */
const valueOf = (w: number, k: number, step: number) =>
  Math.round((Math.sin(w * 31 + k * 7 + step / 97) + 2) * 1e6) / 1e6;

/** One training rank. `pump(now)` sends whatever its schedule says is due by `now`. */
export class FleetWorker {
  private ws!: WebSocket;
  private seq = 0;
  private boot = 0;
  private inFlight = new Map<string, { at: number; points: number; kind: FrameKind }>();
  /** Next step to send and its scheduled time. */
  private step = 0;
  private nextStepAt = 0;
  private nextProgressAt = 0;
  private nextHeartbeatAt = 0;
  private held: { step: number } | null = null;
  private periodMs = 1000;
  /** Every step sent (re-sends included), for the lost/duplicated check. */
  readonly stepsSent = new Set<number>();
  constructor(
    private readonly url: string,
    private readonly token: string,
    readonly index: number,
    readonly runKey: string,
    private readonly tally: FleetTally,
  ) {}

  /** Connects and starts (or resumes) the run; resolves once run.start is acked. @throws Error when refused. */
  async open(): Promise<void> {
    this.boot++;
    this.inFlight.clear();
    this.ws = new WebSocket(`${this.url.replace(/^http/, "ws")}/ws/ingest`, {
      headers: { authorization: `Bearer ${this.token}` },
      perMessageDeflate: false,
    });
    const ws = this.ws;
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
      ws.once("unexpected-response", (_q, res) =>
        reject(new Error(`worker ${this.index}: upgrade refused with HTTP ${res.statusCode}`)),
      );
    });
    ws.on("error", () => undefined);
    let started: (() => void) | null = null;
    const startId = `${this.runKey}.b${this.boot}.start`;
    ws.on("message", (data) => this.onMessage(data.toString(), startId, () => started?.()));
    await new Promise<void>((resolve) => {
      started = resolve;
      ws.send(
        `{"v":1,"id":"${startId}","type":"run.start","run":"${this.runKey}","name":"fleet rank ${this.index}","kind":"training","total":100000000,"unit":"steps"}`,
      );
    });
  }

  /** Sets the schedule: steps at `stepHz` from `t0`, this worker offset by its share of a period. */
  schedule(t0: number, stepHz: number, offsetShare: number): void {
    this.periodMs = 1000 / stepHz;
    this.nextStepAt = t0 + offsetShare * this.periodMs;
    this.nextProgressAt = t0 + offsetShare * PROGRESS_EVERY_MS;
    this.nextHeartbeatAt = t0 + offsetShare * HEARTBEAT_EVERY_MS;
  }

  /** Sends every frame due by `now` (never beyond `until`). */
  pump(now: number, until: number): void {
    // A restarting worker has no open socket yet: what falls due meanwhile goes out (late, timed
    // from its schedule) once the new boot's run.start is acked, as a real worker's queue would.
    if (this.restarting) return;
    while (this.nextStepAt <= now && this.nextStepAt < until) {
      const at = this.nextStepAt;
      const s = this.step++;
      this.nextStepAt += this.periodMs;
      // 1 % of steps go out after the next one (deterministic choice).
      if (this.held === null && (s * 2654435761 + this.index * 40503) % 100 === 0) {
        this.held = { step: s };
        continue;
      }
      this.sendStep(s, at);
      if (this.held) {
        this.sendStep(this.held.step, at);
        this.held = null;
      }
    }
    while (this.nextProgressAt <= now && this.nextProgressAt < until) {
      this.send(
        `"type":"run.progress","run":"${this.runKey}","bootId":"b${this.boot}","done":${this.step},"counters":{"samples":${this.step * 32}}`,
        this.nextProgressAt,
        0,
        "progress",
      );
      this.nextProgressAt += PROGRESS_EVERY_MS;
    }
    while (this.nextHeartbeatAt <= now && this.nextHeartbeatAt < until) {
      this.send(
        `"type":"heartbeat","intervalS":10,"facts":{"cpuPct":${(this.step * 7) % 100},"loadAvg1":1.5}`,
        this.nextHeartbeatAt,
        0,
        "heartbeat",
      );
      this.nextHeartbeatAt += HEARTBEAT_EVERY_MS;
    }
  }

  /** A restart: the socket drops (frames in flight are abandoned), a new boot connects, the last 50 steps go again. */
  async restart(): Promise<void> {
    this.tally.framesAbandoned += this.inFlight.size;
    this.ws.terminate();
    this.restarting = true;
    try {
      await this.open();
    } finally {
      this.restarting = false;
    }
    const now = performance.now();
    for (let s = Math.max(0, this.step - RESEND_STEPS); s < this.step; s++)
      if (this.held?.step !== s) this.sendStep(s, now, "resend");
  }

  /** True while a restart reconnects (pump sends nothing then). */
  private restarting = false;

  /** Frames still waiting for their ack. */
  get pending(): number {
    return this.inFlight.size;
  }

  close(): void {
    this.ws?.terminate();
  }

  private sendStep(s: number, at: number, kind: FrameKind = "step"): void {
    let pts = "";
    for (let k = 0; k < KEYS_PER_STEP; k++)
      pts += `${k ? "," : ""}{"key":"${KEYS[k]}","step":${s},"value":${valueOf(this.index, k, s)}}`;
    this.stepsSent.add(s);
    this.send(
      `"type":"run.metrics","run":"${this.runKey}","points":[${pts}]`,
      at,
      KEYS_PER_STEP,
      kind,
    );
  }

  private send(body: string, scheduledAt: number, points: number, kind: FrameKind): void {
    const id = `${this.index}.b${this.boot}.${++this.seq}`;
    this.inFlight.set(id, { at: scheduledAt, points, kind });
    this.tally.framesSent++;
    this.tally.pointsSent += points;
    this.ws.send(`{"v":1,"id":"${id}",${body}}`);
  }

  private onMessage(text: string, startId: string, onStarted: () => void): void {
    const now = performance.now();
    const msg = JSON.parse(text) as {
      type: string;
      ids?: string[];
      id?: string | null;
      code?: string;
    };
    if (msg.type === "ack") {
      for (const id of msg.ids ?? []) {
        if (id === startId) {
          onStarted();
          continue;
        }
        const f = this.inFlight.get(id);
        if (!f) {
          this.tally.unexpectedAcks++;
          continue;
        }
        this.inFlight.delete(id);
        this.tally.framesAcked++;
        this.tally.pointsAcked += f.points;
        this.tally.latencies.push(now - f.at);
        let byKind = this.tally.latenciesByKind.get(f.kind);
        if (!byKind) this.tally.latenciesByKind.set(f.kind, (byKind = []));
        byKind.push(now - f.at);
      }
    } else if (msg.type === "error") {
      const code = msg.code ?? "?";
      this.tally.rejected.set(code, (this.tally.rejected.get(code) ?? 0) + 1);
      if (msg.id) this.inFlight.delete(msg.id);
    }
  }
}

/** "kind n p50/p99/max ms" per frame kind of `t`, for telling what sets the p99. */
export function latencyByKindText(t: FleetTally): string {
  const parts: string[] = [];
  const all = t.latencies.length;
  for (const [kind, list] of t.latenciesByKind) {
    const s = Float64Array.from(list).sort();
    const at = (q: number) => s[Math.min(s.length - 1, Math.floor(s.length * q))] ?? NaN;
    parts.push(
      `${kind} ${s.length} (${((s.length * 100) / Math.max(1, all)).toFixed(1)} %) p50 ${at(0.5).toFixed(0)} p99 ${at(0.99).toFixed(0)} max ${(s[s.length - 1] ?? NaN).toFixed(0)}`,
    );
  }
  return `by kind (ms): ${parts.join(" | ")}`;
}
