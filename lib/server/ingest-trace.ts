import fs from "node:fs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";

/*
 * Optional timing of a frame's life and of the metric fold (PITWALL_INGEST_TRACE=<file>), for
 * finding what holds up acks under a fleet's load (docs/benchmarks.md, "Issue 22"). Off by
 * default: every hook below is one null check then. When on, one JSON line per acked batch, per
 * group, per fold transaction and per second (event-loop delay) is appended to the file;
 * scripts/bench/fleet/trace-summary.ts reads it.
 */

/** Marks (performance.now(), ms) of one group transaction, in order; `name` of each phase. */
export class GroupTrace {
  readonly marks: Array<[string, number]> = [];
  constructor(
    readonly heavy: boolean,
    readonly parts: number,
    readonly frames: number,
  ) {}
  /** Notes that phase `name` ended now. */
  mark(name: string): void {
    this.marks.push([name, performance.now()]);
  }
}

/** Times of one socket batch (ms, performance.now()). */
export interface BatchTimes {
  /** When its first frame's message arrived (the oldest frame of the batch). */
  receivedMs: number;
  /** When its newest frame's message arrived. */
  lastReceivedMs: number;
  /** When the socket handed it to the group committer. */
  submittedMs: number;
  /** Its group's trace (start mark first), set by the committer. */
  group?: GroupTrace;
  startedMs?: number;
}

class IngestTracer {
  private lines: string[] = [];
  private readonly eld = monitorEventLoopDelay({ resolution: 10 });
  constructor(private readonly file: string) {
    this.eld.enable();
    const timer = setInterval(() => this.flush(), 1000);
    timer.unref();
  }

  /** One batch acked: its frames' times from receipt to the ack written to the socket. */
  batch(t: BatchTimes, frames: number, ackedMs: number): void {
    const g = t.group;
    this.lines.push(
      JSON.stringify({
        k: "batch",
        frames,
        recv: t.receivedMs,
        lastRecv: t.lastReceivedMs,
        submit: t.submittedMs,
        start: t.startedMs,
        heavy: g?.heavy,
        gFrames: g?.frames,
        gParts: g?.parts,
        marks: g?.marks,
        ack: ackedMs,
      }),
    );
  }

  /** One fold transaction: start and end (ms), runs locked, rows folded, and its phase marks. */
  fold(startMs: number, endMs: number, runs: number, rows: number, marks: Array<[string, number]>) {
    this.lines.push(JSON.stringify({ k: "fold", start: startMs, end: endMs, runs, rows, marks }));
  }

  private flush(): void {
    const now = performance.now();
    this.lines.push(
      JSON.stringify({
        k: "eld",
        at: now,
        p50Ms: this.eld.percentile(50) / 1e6,
        p99Ms: this.eld.percentile(99) / 1e6,
        maxMs: this.eld.max / 1e6,
      }),
    );
    this.eld.reset();
    const text = this.lines.join("\n") + "\n";
    this.lines = [];
    fs.appendFile(this.file, text, () => undefined);
  }
}

let tracer: IngestTracer | null = null;

/** Turns the trace on, appending to `file` (server.ts, when PITWALL_INGEST_TRACE is set). */
export function startIngestTrace(file: string): void {
  tracer ??= new IngestTracer(file);
}

/** The trace when on, else null (so callers skip their timing work). */
export function ingestTrace(): IngestTracer | null {
  return tracer;
}
