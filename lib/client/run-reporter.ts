import os from "node:os";
import { StringDecoder } from "node:string_decoder";

import {
  RUN_OUTPUT_MAX_LINES,
  type MetricPointInput,
  type RunKind,
  type RunStartFrame,
} from "@/lib/protocol";

import { systemClock, type Clock } from "./clock";
import { clipLine, LineSplitter, OutputTail } from "./output-lines";
import { parseProgressLine, type PitwallLine, type TqdmProgress } from "./progress-lines";
import type { OutgoingFrame } from "./socket";

/**
 * Turns a command's output into run frames for `pitwall run`: reads `PITWALL {json}` lines and
 * tqdm bars from stdout and stderr, keeps the output tail, and sends `run.start`,
 * `run.progress` (at most one per `progressIntervalMs`, always the latest state), `run.metrics`
 * (buffered, sent with the progress tick: none dropped), `run.output` (the output's new lines, at
 * most one frame per `outputIntervalMs`, unless `liveOutput` is false), `run.event`,
 * `run.artifact` and `run.end` (with the last 200 lines).
 *
 * Precedence: once a `PITWALL` line has reported `done`, tqdm bars no longer move `done`/`total`
 * (the command reports explicitly; a bar may be an inner loop). A tqdm total is used only while
 * no total is known from `--total` or a `PITWALL` line.
 */

/** Anything that can send frames (a {@link PitwallSocket}, or a recorder in tests). */
export interface FrameSender {
  send(frame: OutgoingFrame): string;
}

/** Options of {@link RunReporter}. */
export interface RunReporterOptions {
  sender: FrameSender;
  /** Client key of the run. */
  run: string;
  /** Identifies this process among the run's workers (default "main"). */
  workerId?: string;
  /** Changes with every process start, so the server keeps counters monotonic across restarts. */
  bootId: string;
  /** Expected items (from `--total`); a fixed total is never overridden by tqdm. */
  total?: number;
  /** What the items are (from `--unit`); overrides units from output. */
  unit?: string;
  clock?: Clock;
  /** Send the output's lines live as `run.output` frames (default true; `--no-live-output`). */
  liveOutput?: boolean;
  /** Minimum ms between two `run.output` frames (default 1000). */
  outputIntervalMs?: number;
  /** Minimum ms between two `run.progress` frames (default 1000). */
  progressIntervalMs?: number;
  /** Called with a description of each invalid `PITWALL` line. */
  onWarning?: (message: string) => void;
}

/** How the command ended. */
export interface CommandExit {
  /** Exit code when it exited normally. */
  code: number | null;
  /** Signal that killed it, if any. */
  signal: NodeJS.Signals | null;
  /** True when the run was cancelled (Ctrl-C / SIGTERM forwarded and the command died of it). */
  cancelled: boolean;
}

/** Metric points per `run.metrics` frame before it is sent without waiting for the tick. */
const METRICS_BATCH = 5000;

/** Builds the run's frames from the command's output; see the module comment. */
export class RunReporter {
  private readonly clock: Clock;
  private readonly splitters = { stdout: new LineSplitter(), stderr: new LineSplitter() };
  private readonly decoders = {
    stdout: new StringDecoder("utf8"),
    stderr: new StringDecoder("utf8"),
  };
  private readonly tail = new OutputTail();
  /** Finished lines not yet sent as `run.output` (the newest RUN_OUTPUT_MAX_LINES). */
  private pendingOutput: string[] = [];
  private lastOutputAt = -Infinity;
  private done: number | undefined;
  private total: number | undefined;
  private unit: string | undefined;
  private totalFixed: boolean;
  private unitFixed: boolean;
  private explicitDone = false;
  private counters: Record<string, number> = {};
  private metrics: MetricPointInput[] = [];
  private metricLines = 0;
  private dirty = false;
  private lastProgressAt = -Infinity;
  /** Last tqdm segment seen in each stream's unfinished line, to skip re-parsing the same bar. */
  private lastPartial = { stdout: "", stderr: "" };

  constructor(private readonly opts: RunReporterOptions) {
    this.clock = opts.clock ?? systemClock;
    this.total = opts.total;
    this.unit = opts.unit;
    this.totalFixed = opts.total !== undefined;
    this.unitFixed = opts.unit !== undefined;
  }

  /** Sends `run.start` (with `total`/`unit` from the options). */
  start(fields: {
    name: string;
    kind: RunKind;
    config?: Record<string, unknown>;
    tags?: string[];
    host?: string;
    notes?: string;
    stallAfterS?: number;
  }): void {
    const frame: Omit<RunStartFrame, "v" | "id"> = {
      type: "run.start",
      run: this.opts.run,
      name: fields.name,
      kind: fields.kind,
      startedAt: this.clock.now(),
    };
    if (fields.config) frame.config = fields.config;
    if (fields.tags?.length) frame.tags = fields.tags;
    if (fields.host) frame.host = fields.host;
    if (fields.notes) frame.notes = fields.notes;
    if (fields.stallAfterS !== undefined) frame.stallAfterS = fields.stallAfterS;
    if (this.total !== undefined) frame.total = this.total;
    if (this.unit !== undefined) frame.unit = this.unit;
    this.opts.sender.send(frame);
  }

  /** Feeds raw output of the command (any chunking; UTF-8 split across chunks is handled). */
  write(stream: "stdout" | "stderr", chunk: Buffer | string): void {
    const text = typeof chunk === "string" ? chunk : this.decoders[stream].write(chunk);
    const splitter = this.splitters[stream];
    const out = splitter.push(text);
    for (const segment of out.segments) this.handle(segment);
    this.addLines(out.lines);
    // tqdm draws "\r<bar>" and only ends it with the next "\r": read the bar already drawn.
    const pending = splitter.pending();
    if (pending !== this.lastPartial[stream] && pending.endsWith("]")) {
      this.lastPartial[stream] = pending;
      const parsed = parseProgressLine(pending);
      if (parsed?.kind === "tqdm") this.applyTqdm(parsed.progress);
    }
    if (this.metrics.length >= METRICS_BATCH) this.sendMetrics();
  }

  /** Sends the latest progress if it changed and the interval has passed, plus buffered metrics. Call it periodically. */
  tick(): void {
    this.sendMetrics();
    this.sendOutput();
    const now = this.clock.now();
    if (this.dirty && now - this.lastProgressAt >= (this.opts.progressIntervalMs ?? 1000))
      this.sendProgress(now);
  }

  /** Ends the output streams, sends the final progress and metrics, then `run.end`. */
  finish(exit: CommandExit): void {
    for (const stream of ["stdout", "stderr"] as const) {
      const rest = this.decoders[stream].end();
      const out = this.splitters[stream].push(rest);
      for (const segment of out.segments) this.handle(segment);
      this.addLines(out.lines);
      const last = this.splitters[stream].end();
      for (const segment of last.segments) this.handle(segment);
      this.addLines(last.lines);
    }
    this.sendMetrics();
    if (this.dirty) this.sendProgress(this.clock.now());
    const exitCode = exit.code ?? (exit.signal ? 128 + signalNumber(exit.signal) : null);
    const status = exit.cancelled ? "cancelled" : exit.code === 0 ? "succeeded" : "failed";
    const frame: OutgoingFrame = {
      type: "run.end",
      run: this.opts.run,
      status,
      endedAt: this.clock.now(),
      outputTail: this.tail.snapshot(),
    };
    if (exitCode !== null) frame.exitCode = exitCode;
    if (exit.signal) frame.error = `killed by ${exit.signal}`;
    else if (status === "failed") frame.error = `exited with code ${exit.code}`;
    this.opts.sender.send(frame);
  }

  /** Latest known position (for tests and summaries). */
  state(): { done?: number; total?: number; unit?: string; counters: Record<string, number> } {
    return { done: this.done, total: this.total, unit: this.unit, counters: { ...this.counters } };
  }

  private addLines(lines: readonly string[]): void {
    this.tail.add(lines);
    if (this.opts.liveOutput === false || lines.length === 0) return;
    for (const line of lines) this.pendingOutput.push(clipLine(line));
    if (this.pendingOutput.length > 2 * RUN_OUTPUT_MAX_LINES)
      this.pendingOutput = this.pendingOutput.slice(-RUN_OUTPUT_MAX_LINES);
  }

  /** Sends the lines finished since the last `run.output` (only the newest 200: the server keeps no more). */
  private sendOutput(): void {
    const now = this.clock.now();
    if (this.pendingOutput.length === 0) return;
    if (now - this.lastOutputAt < (this.opts.outputIntervalMs ?? 1000)) return;
    this.lastOutputAt = now;
    const lines = this.pendingOutput.slice(-RUN_OUTPUT_MAX_LINES);
    this.pendingOutput = [];
    this.opts.sender.send({ type: "run.output", run: this.opts.run, lines });
  }

  private handle(segment: string): void {
    const parsed = parseProgressLine(segment);
    if (!parsed) return;
    if (parsed.kind === "invalid")
      this.opts.onWarning?.(`ignored PITWALL line (${parsed.message}): ${segment.slice(0, 200)}`);
    else if (parsed.kind === "tqdm") this.applyTqdm(parsed.progress);
    else this.applyLine(parsed.line);
  }

  private applyTqdm(p: TqdmProgress): void {
    if (this.explicitDone) return;
    this.setProgress(p.done, p.total, p.unit, false);
  }

  private applyLine(line: PitwallLine): void {
    if (line.done !== undefined) this.explicitDone = true;
    this.setProgress(line.done, line.total, line.unit, true);
    if (line.counters) {
      for (const [name, value] of Object.entries(line.counters)) this.counters[name] = value;
      this.dirty = true;
    }
    if (line.metrics) {
      const step = line.step ?? line.done ?? this.done ?? this.metricLines;
      this.metricLines++;
      const ts = this.clock.now();
      for (const [key, value] of Object.entries(line.metrics))
        this.metrics.push({ key, step, value, ts });
    }
    if (line.event) {
      const e =
        typeof line.event === "string"
          ? { level: "info" as const, message: line.event }
          : line.event;
      this.opts.sender.send({
        type: "run.event",
        run: this.opts.run,
        level: e.level,
        message: e.message,
        ts: this.clock.now(),
      });
    }
    if (line.artifact) {
      this.opts.sender.send({
        type: "run.artifact",
        run: this.opts.run,
        ...line.artifact,
        ts: this.clock.now(),
      });
    }
  }

  private setProgress(
    done: number | undefined,
    total: number | undefined,
    unit: string | undefined,
    explicit: boolean,
  ): void {
    if (done !== undefined && done !== this.done) {
      this.done = done;
      this.dirty = true;
    }
    if (total !== undefined && total !== this.total && !this.totalFixed) {
      this.total = total;
      this.dirty = true;
      if (explicit) this.totalFixed = true;
    }
    if (unit !== undefined && unit !== this.unit && !this.unitFixed) {
      this.unit = unit;
      this.dirty = true;
      if (explicit) this.unitFixed = true;
    }
  }

  private sendProgress(now: number): void {
    const frame: OutgoingFrame = {
      type: "run.progress",
      run: this.opts.run,
      workerId: this.opts.workerId ?? "main",
      bootId: this.opts.bootId,
      ts: now,
    };
    if (this.done !== undefined) frame.done = this.done;
    if (this.total !== undefined) frame.total = this.total;
    if (this.unit !== undefined) frame.unit = this.unit;
    if (Object.keys(this.counters).length) frame.counters = { ...this.counters };
    this.opts.sender.send(frame);
    this.dirty = false;
    this.lastProgressAt = now;
  }

  private sendMetrics(): void {
    while (this.metrics.length) {
      const points = this.metrics.splice(0, METRICS_BATCH);
      this.opts.sender.send({ type: "run.metrics", run: this.opts.run, points });
    }
  }
}

/** The POSIX number of a signal name (SIGTERM → 15), for the shell's 128+n exit code convention; 0 if unknown. */
export function signalNumber(signal: NodeJS.Signals): number {
  return os.constants.signals[signal] ?? 0;
}
