import { parseBenchmarkFile } from "@/lib/importers/benchmark-import";
import type { BenchmarkScenario } from "@/lib/importers/benchmark-run";
import { frameId, withId } from "@/lib/importers/frame-building";
import { mergeFacts, type BenchmarkFormat } from "@/lib/importers/source-common";
import {
  baseName,
  sha256Hex,
  type ImportProblem,
  type JsonObject,
} from "@/lib/importers/source-text";
import { PROTOCOL_VERSION, type BenchmarkPointInput, type ClientFrameInput } from "@/lib/protocol";

import type { TailLine } from "./file-tail";

/**
 * Live import of a benchmark sweep's JSON-lines output while it is written (`pitwall watch bench`,
 * `pitwall run --follow`): each complete result line of SGLang `bench_serving --output-file` or
 * vLLM `bench serve --append-result` becomes one point as soon as it is appended, mapped by the
 * same format modules as `pitwall import` (lib/importers).
 *
 * Identity, so a restarted watcher that reads the file again sends nothing twice: the point key
 * is `<sha256 of the line, 16 hex>:<line number>` and the frame id derives from the frame's
 * content (frame-building.ts), so the same line at the same place gives the same id and the server
 * dedupes it; a line rewritten in place gives a new point. The default run key is
 * `watch:` + 32 hex of sha256(host name, absolute path, first result line): the same file on the
 * same host is the same run after a restart; a new sweep written afresh to that path is another.
 */

type RunStartInput = Extract<ClientFrameInput, { type: "run.start" }>;
type RunBenchmarkInput = Extract<ClientFrameInput, { type: "run.benchmark" }>;
type RunEndInput = Extract<ClientFrameInput, { type: "run.end" }>;

/** Options of {@link BenchFollower}. */
export interface BenchFollowerOptions {
  /** The followed file's path (its base name names the run and its config's `sourceFiles`). */
  file: string;
  /**
   * Run to add points to. With `startRun` false (pitwall run --follow) the run exists already;
   * otherwise undefined means the default key from the first result line (see the module comment).
   */
  runKey?: string;
  /** Send `run.start` (kind benchmark, config from the rows so far) when the config changes. Default true. */
  startRun?: boolean;
  /** Salt of the default run key (the host name). */
  keySalt?: string;
  name?: string;
  host?: string;
  tags?: string[];
  /** Scenario of every point (default: as the format module says, i.e. throughput). */
  scenario?: BenchmarkScenario;
  /** Seconds without a new result before the run shows as stale (run.start `stallAfterS`; server default when unset). */
  stallAfterS?: number;
}

/** What one or more new lines turned into. */
export interface FollowedLines {
  frames: ClientFrameInput[];
  /** Lines that are not result rows (or rows of another tool than the file's first): skipped. */
  problems: ImportProblem[];
  /** The points added, for a one-line summary each. */
  points: BenchmarkPointInput[];
}

/**
 * What a {@link BenchFollower} has learnt from the lines so far, to carry across a restart
 * (`pitwall watch bench` keeps it in its state file): plain JSON.
 */
export interface BenchFollowerState {
  format: BenchmarkFormat | null;
  key: string | null;
  facts: JsonObject[];
  startedAt: number | null;
  endedAt: number | null;
  anyCompleted: boolean;
  pointCount: number;
  lastStartId: string | null;
}

/** Turns appended result lines into frames; see the module comment. Not thread-safe, no I/O. */
export class BenchFollower {
  private format: BenchmarkFormat | null = null;
  private key: string | null;
  private readonly facts: JsonObject[] = [];
  private startedAt: number | undefined;
  private endedAt: number | undefined;
  private anyCompleted = false;
  private pointCount = 0;
  private lastStartId: string | null = null;

  constructor(private readonly opts: BenchFollowerOptions) {
    this.key = opts.runKey ?? null;
  }

  /** The run key (null until the first result line when it derives from it). */
  get runKey(): string | null {
    return this.key;
  }

  /** Points added so far. */
  get points(): number {
    return this.pointCount;
  }

  /** What this follower knows, as plain JSON (see {@link BenchFollowerState}). */
  snapshot(): BenchFollowerState {
    return {
      format: this.format,
      key: this.key,
      facts: [...this.facts],
      startedAt: this.startedAt ?? null,
      endedAt: this.endedAt ?? null,
      anyCompleted: this.anyCompleted,
      pointCount: this.pointCount,
      lastStartId: this.lastStartId,
    };
  }

  /**
   * Continues from a {@link snapshot} of an earlier follower of the same file, so the next lines
   * give the frames they would have given without the restart (same run key, same config and ids).
   * A `runKey` passed in the options wins over the saved one.
   */
  restore(state: BenchFollowerState): void {
    this.format = state.format;
    this.key = this.opts.runKey ?? state.key;
    this.facts.splice(0, this.facts.length, ...state.facts);
    this.startedAt = state.startedAt ?? undefined;
    this.endedAt = state.endedAt ?? undefined;
    this.anyCompleted = state.anyCompleted;
    this.pointCount = state.pointCount;
    this.lastStartId = state.lastStartId;
  }

  /** Forgets the file's format (the file was replaced or truncated: its lines come again). */
  reset(): void {
    this.format = null;
  }

  /** Frames for newly completed lines (blank lines are skipped silently). */
  add(lines: readonly TailLine[]): FollowedLines {
    const out: FollowedLines = { frames: [], problems: [], points: [] };
    const pointFrames: ClientFrameInput[] = [];
    for (const { line, text } of lines) {
      if (text.trim() === "") continue;
      let parsed;
      try {
        parsed = parseBenchmarkFile({ path: this.opts.file, text }).parsed;
      } catch (err) {
        out.problems.push({ file: this.opts.file, line, message: (err as Error).message });
        continue;
      }
      const rec = parsed.records[0];
      if (!rec) continue;
      if (this.format !== null && parsed.format !== this.format) {
        out.problems.push({
          file: this.opts.file,
          line,
          message: `a ${parsed.format} row in a ${this.format} file; skipped`,
        });
        continue;
      }
      this.format = parsed.format;
      this.key ??= `watch:${sha256Hex(`${this.opts.keySalt ?? ""}\n${this.opts.file}\n${text}`).slice(0, 32)}`;
      const { point, raw, facts, startedAtMs, endedAtMs } = rec.mapping;
      const scenario = this.opts.scenario !== undefined ? { scenario: this.opts.scenario } : {};
      const full: BenchmarkPointInput = {
        key: `${sha256Hex(text).slice(0, 16)}:${line}`,
        ord: line,
        ...point,
        ...scenario,
        raw,
      };
      this.facts.push(facts);
      if (startedAtMs !== undefined)
        this.startedAt =
          this.startedAt === undefined ? startedAtMs : Math.min(this.startedAt, startedAtMs);
      if (endedAtMs !== undefined)
        this.endedAt = this.endedAt === undefined ? endedAtMs : Math.max(this.endedAt, endedAtMs);
      if (point.completed !== 0) this.anyCompleted = true;
      this.pointCount++;
      const body: Omit<RunBenchmarkInput, "id"> = {
        v: PROTOCOL_VERSION,
        type: "run.benchmark",
        run: this.key,
        points: [full],
      };
      pointFrames.push(withId(body, frameId(this.key, "points", body)));
      out.points.push(full);
    }
    const start = this.startFrame();
    if (start) out.frames.push(start);
    out.frames.push(...pointFrames);
    return out;
  }

  /**
   * The `run.end` frame once the sweep is over (null before any result line, or with
   * `startRun` false: the owner of the run ends it): succeeded, or failed when every result had
   * `completed` 0, as `pitwall import` decides.
   */
  end(): ClientFrameInput | null {
    if (this.key === null || this.opts.startRun === false || this.pointCount === 0) return null;
    const body: Omit<RunEndInput, "id"> = {
      v: PROTOCOL_VERSION,
      type: "run.end",
      run: this.key,
      status: this.anyCompleted ? "succeeded" : "failed",
      ...(this.endedAt !== undefined ? { endedAt: this.endedAt } : {}),
      ...(this.anyCompleted
        ? {}
        : { error: "every benchmark result has completed = 0 (all requests failed)" }),
    };
    return withId(
      body,
      frameId(this.key, "end", { ...body, after: this.lastStartId, points: this.pointCount }),
    );
  }

  /** A run.start when the run's config (merged from the rows so far) changed since the last one sent. */
  private startFrame(): ClientFrameInput | null {
    if (this.opts.startRun === false || this.key === null || this.format === null) return null;
    const merged = mergeFacts(this.facts);
    const config: JsonObject = {
      format: this.format,
      ...merged,
      model: merged.model ?? null,
      sourceFiles: [baseName(this.opts.file)],
      live: true,
    };
    if (Array.isArray(config.inputLen)) delete config.inputLen;
    if (Array.isArray(config.outputLen)) delete config.outputLen;
    const body: Omit<RunStartInput, "id"> = {
      v: PROTOCOL_VERSION,
      type: "run.start",
      run: this.key,
      name: (this.opts.name ?? baseName(this.opts.file)).slice(0, 300),
      kind: "benchmark",
      ...(this.opts.host !== undefined ? { host: this.opts.host } : {}),
      ...(this.startedAt !== undefined ? { startedAt: this.startedAt } : {}),
      config,
      ...(this.opts.tags !== undefined && this.opts.tags.length > 0
        ? { tags: this.opts.tags }
        : {}),
      ...(this.opts.stallAfterS !== undefined ? { stallAfterS: this.opts.stallAfterS } : {}),
    };
    const id = frameId(this.key, "start", body);
    if (id === this.lastStartId) return null;
    this.lastStartId = id;
    return withId(body, id);
  }
}
