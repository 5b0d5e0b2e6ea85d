import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import readline from "node:readline";

import type { PitwallSocket } from "@/lib/client";

import { gpuReading, type DemoContext, type DemoWorker, type GpuReading } from "./context";
import type { Rng } from "./rng";

/**
 * The generation run that goes silent: completions for 100K prompts on GPUs 4-5 of `ct129`, with
 * `stallAfterS` 25. The worker reports progress about once per real second for 15 real seconds,
 * then hangs (its GPUs idle, their memory still held) and never pushes again, so the overview shows
 * the run turning stale. Driven by the Python client (generation_worker.py) when `python3`
 * (3.9+) is available, else by the TypeScript SDK.
 */

const TOTAL_PROMPTS = 100_000;
/** Simulated prompts per second: 100,000 prompts take 142.5 hours at this rate. */
const PROMPTS_PER_S = 100_000 / (142.5 * 3600);
const SILENT_AFTER_REAL_S = 15;
const STALL_AFTER_S = 25;
const GPU = { name: "NVIDIA A100-SXM4-80GB", memTotalMiB: 81_920, maxPowerW: 400 };

/** True when `python3` runs and is 3.9 or later (what the Python client, clients/python/pitwall, needs). */
export function pythonAvailable(): boolean {
  const res = spawnSync(
    "python3",
    ["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)"],
    { stdio: "ignore", timeout: 10_000 },
  );
  return res.status === 0;
}

/** See the module comment. */
export class GenerationDemo implements DemoWorker {
  readonly key: string;
  /** Which client drives the run: the Python client or the TypeScript SDK. */
  mode: "python" | "typescript";
  private socket: PitwallSocket | null = null;
  private python: ChildProcess | null = null;
  private pythonExited: Promise<void> | null = null;
  private readonly bootId = randomUUID();
  private startedAtMs = 0;
  private done = 0;
  private silent = false;
  private ended = false;

  constructor(
    private readonly ctx: DemoContext,
    usePython: boolean,
  ) {
    this.key = `${ctx.keyPrefix}-gen`;
    this.mode = usePython ? "python" : "typescript";
  }

  async start(): Promise<void> {
    this.startedAtMs = this.ctx.now();
    if (this.mode === "python") {
      try {
        await this.startPython();
        return;
      } catch (err) {
        this.ctx.note(
          `generation: the Python worker failed to start (${(err as Error).message}); using the TypeScript SDK instead`,
        );
        this.mode = "typescript";
      }
    }
    const socket = this.connect();
    socket.send({
      type: "run.start",
      run: this.key,
      name: "Completions · 100K prompts · Qwen3.6-27B",
      kind: "generation",
      startedAt: this.startedAtMs,
      total: TOTAL_PROMPTS,
      unit: "prompts",
      stallAfterS: STALL_AFTER_S,
      tags: ["generation", "demo"],
      config: {
        model: "Qwen/Qwen3.6-27B",
        engine: "sglang",
        engineVersion: "0.5.11",
        tp: 2,
        dataset: "prompts-100k",
        maxNewTokens: 2048,
        temperature: 0.7,
      },
    });
    socket.send({
      type: "run.event",
      run: this.key,
      message: `generation started: ${TOTAL_PROMPTS.toLocaleString("en-US")} prompts on GPUs 4-5`,
    });
    await socket.flush(30_000);
  }

  /** Starts generation_worker.py and resolves once the server has its run. */
  private async startPython(): Promise<void> {
    const child = spawn(
      "python3",
      [
        path.join(import.meta.dirname, "generation_worker.py"),
        "--key",
        this.key,
        "--speed",
        String(this.ctx.speed),
        "--silent-after",
        String(SILENT_AFTER_REAL_S),
        "--stall-after",
        String(STALL_AFTER_S),
        "--prompts-per-s",
        String(PROMPTS_PER_S),
      ],
      {
        env: {
          ...process.env,
          PITWALL_URL: this.ctx.url,
          PITWALL_TOKEN: this.ctx.token("ct129"),
          PYTHONDONTWRITEBYTECODE: "1",
          PYTHONUNBUFFERED: "1",
        },
        // Its own process group: a Ctrl-C in the terminal reaches the demo, which stops it in order.
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    this.python = child;
    this.pythonExited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.once("error", () => undefined);
    readline.createInterface({ input: child.stderr! }).on("line", (line) => {
      if (line.trim()) this.ctx.note(`generation worker (python): ${line}`);
    });
    const lines = readline.createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no answer within 45 s")), 45_000);
      lines.on("line", (line) => {
        if (line === "ready") {
          clearTimeout(timer);
          resolve();
        } else if (line === "silent") {
          this.goneSilent();
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`python3 exited with code ${code}`));
      });
      child.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    }).catch(async (err: unknown) => {
      await this.stopPython();
      throw err;
    });
  }

  tick(simDtS: number, nowMs: number): void {
    if (this.mode === "python" || this.silent || this.ended || !this.socket) return;
    if (nowMs - this.startedAtMs >= SILENT_AFTER_REAL_S * 1000) {
      this.goneSilent();
      return;
    }
    this.done = Math.min(TOTAL_PROMPTS, this.done + PROMPTS_PER_S * simDtS);
    this.socket.send({
      type: "run.progress",
      run: this.key,
      workerId: "gen0",
      bootId: this.bootId,
      ts: nowMs,
      done: Math.floor(this.done),
      total: TOTAL_PROMPTS,
      unit: "prompts",
      counters: { "tokens.out": Math.floor(this.done * 612) },
    });
    // The throughput the "Generation stopped producing" alert rule watches (silent once the worker hangs).
    this.socket.send({
      type: "run.metrics",
      run: this.key,
      points: [
        { key: "prompts_per_s", step: Math.floor(this.done), value: PROMPTS_PER_S, ts: nowMs },
      ],
    });
  }

  private goneSilent(): void {
    if (this.silent) return;
    this.silent = true;
    this.ctx.note(
      `generation: the worker hung and stopped pushing; the run shows as stale ${STALL_AFTER_S} s after its last push`,
    );
  }

  async stop(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.stopPython();
    // The hung worker never ends its run; the demo's supervisor does, for a tidy next start.
    const socket = this.socket ?? this.connect();
    socket.send({
      type: "run.end",
      run: this.key,
      status: "cancelled",
      error: "the demo was stopped (the worker had hung)",
      endedAt: this.ctx.now(),
    });
  }

  private async stopPython(): Promise<void> {
    const child = this.python;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await this.pythonExited;
    clearTimeout(timer);
  }

  gpus(rng: Rng): GpuReading[] {
    // Hung in a collective: the GPUs idle, their memory stays allocated.
    const util = this.ended ? 0 : this.silent ? 0 : 88;
    return [4, 5].map((index) => gpuReading(rng, { index, ...GPU }, util, this.ended ? 0 : 68_200));
  }

  summary(): string {
    return `generation (${this.mode}): ${this.ended ? "stopped" : this.silent ? "hung, no pushes (stale)" : "running"}`;
  }

  private connect(): PitwallSocket {
    const socket = this.ctx.connect("ct129", "gen0");
    socket.send({ type: "hello", client: "pitwall-demo", workerId: "gen0" });
    this.socket = socket;
    return socket;
  }
}
