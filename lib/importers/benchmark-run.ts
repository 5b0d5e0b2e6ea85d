import {
  PROTOCOL_VERSION,
  type BENCHMARK_SCENARIOS,
  type BenchmarkPointInput,
  type ClientFrameInput,
} from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import { chunkBySize, envelopeBytes, frameId, withId } from "./frame-building";
import { mergeFacts, type BenchmarkFormat, type RowMapping } from "./source-common";
import {
  baseName,
  naturalCompare,
  sha256Hex,
  utf8ByteLength,
  type ImportProblem,
  type JsonObject,
} from "./source-text";

/**
 * Turns parsed benchmark files into one run's protocol frames: `run.start`, one or more
 * `run.benchmark` frames (split by point count and serialised size), `run.end`.
 * Everything here is deterministic in the file contents and the options, so re-importing the same
 * files yields byte-identical frames, and the server's dedupe by frame id makes it a no-op.
 */

/** Default largest number of points in one `run.benchmark` frame (the protocol allows 5000). */
export const DEFAULT_MAX_POINTS_PER_FRAME = 500;
/** Default largest serialised `run.benchmark` frame, in bytes: 768 KiB, well under the 1 MiB limit. */
export const DEFAULT_MAX_FRAME_BYTES = 768 * 1024;

/** One result row of a parsed file, already mapped by its format module. */
export interface MappedRecord {
  /** 1-based line where the row starts. */
  line: number;
  /** The row's source text (hashed into the point key). */
  text: string;
  mapping: RowMapping;
}

/** A file parsed and mapped by one format module. */
export interface ParsedFile {
  path: string;
  /** SHA-256 (hex) of the file text. */
  contentHash: string;
  format: BenchmarkFormat;
  /** Physical line count, used to give points of several files distinct `ord`s. */
  lineCount: number;
  records: MappedRecord[];
}

/** Run-level options, validated by the caller. `scenario` overrides every point's scenario. */
export interface RunOptions {
  name: string;
  host?: string;
  tags?: string[];
  scenario?: BenchmarkScenario;
  maxPointsPerFrame: number;
  maxFrameBytes: number;
}

/** One assembled run; see `ImportedRun` in benchmark-import.ts for the public shape. */
export interface BuiltRun {
  runKey: string;
  name: string;
  format: BenchmarkFormat;
  files: string[];
  pointCount: number;
  frames: ClientFrameInput[];
  problems: ImportProblem[];
}

/** A benchmark scenario name (`throughput`, `long-context`). */
export type BenchmarkScenario = (typeof BENCHMARK_SCENARIOS)[number];

type RunStartInput = Extract<ClientFrameInput, { type: "run.start" }>;
type RunBenchmarkInput = Extract<ClientFrameInput, { type: "run.benchmark" }>;
type RunEndInput = Extract<ClientFrameInput, { type: "run.end" }>;

/**
 * Run key from file contents: `import:` + the first 32 hex chars of the file's SHA-256 for one
 * file, or of the SHA-256 over the sorted content hashes (newline-joined) for several.
 * Independent of paths, order and options, so a rename or another name upserts the same run.
 */
export function runKeyFor(contentHashes: readonly string[]): string {
  if (contentHashes.length === 1) return `import:${(contentHashes[0] as string).slice(0, 32)}`;
  return `import:${sha256Hex([...contentHashes].sort().join("\n")).slice(0, 32)}`;
}

/**
 * Point key: `<sha256 of the line text, 16 hex>:<file sha256, 8 hex>:<line>`. The line hash ties
 * the key to the content, the file hash keeps identical lines of two files of one run apart, and
 * the line number keeps two identical lines of one file apart.
 */
export function pointKeyFor(lineText: string, contentHash: string, line: number): string {
  return `${sha256Hex(lineText).slice(0, 16)}:${contentHash.slice(0, 8)}:${line}`;
}

/** Files in canonical order: natural order of base names, then content hash (host-independent). */
export function canonicalFileOrder(files: readonly ParsedFile[]): ParsedFile[] {
  return [...files].sort(
    (a, b) =>
      naturalCompare(baseName(a.path), baseName(b.path)) ||
      (a.contentHash < b.contentHash ? -1 : a.contentHash > b.contentHash ? 1 : 0),
  );
}

/**
 * Builds the frames of one run from one or more parsed files of one format.
 * Points: one per record, `ord` = 1-based line number (plus the line counts of the files before
 * it in canonical order). A point whose serialised size alone exceeds the frame budget has the
 * largest entries of its `raw` removed until it fits (reported as a problem).
 * @throws Error when `files` is empty or holds no records (callers filter those out first).
 */
export function buildRun(files: readonly ParsedFile[], opts: RunOptions): BuiltRun {
  const ordered = canonicalFileOrder(files);
  const first = ordered[0];
  if (!first) throw new Error("buildRun needs at least one file");
  const runKey = runKeyFor(ordered.map((f) => f.contentHash));
  const problems: ImportProblem[] = [];

  const points: BenchmarkPointInput[] = [];
  const facts: JsonObject[] = [];
  let startedAt: number | undefined;
  let endedAt: number | undefined;
  let anyCompleted = false;
  let offset = 0;
  for (const file of ordered) {
    for (const rec of file.records) {
      const { point, raw, facts: rowFacts, startedAtMs, endedAtMs } = rec.mapping;
      // `--scenario` replaces the format module's scenario in place (same key order, so frames
      // without the option stay byte-identical to earlier imports).
      const scenario = opts.scenario !== undefined ? { scenario: opts.scenario } : {};
      points.push({
        key: pointKeyFor(rec.text, file.contentHash, rec.line),
        ord: offset + rec.line,
        ...point,
        ...scenario,
        raw,
      });
      facts.push(rowFacts);
      if (startedAtMs !== undefined)
        startedAt = startedAt === undefined ? startedAtMs : Math.min(startedAt, startedAtMs);
      if (endedAtMs !== undefined)
        endedAt = endedAt === undefined ? endedAtMs : Math.max(endedAt, endedAtMs);
      if (point.completed !== 0) anyCompleted = true;
    }
    offset += file.lineCount;
  }
  if (points.length === 0) throw new Error("buildRun needs at least one record");

  const merged = mergeFacts(facts);
  const config: JsonObject = {
    format: first.format,
    ...merged,
    model: merged.model ?? null,
    sourceFiles: ordered.map((f) => baseName(f.path)),
  };
  // Lengths are reported only when one value holds for the whole run.
  if (Array.isArray(config.inputLen)) delete config.inputLen;
  if (Array.isArray(config.outputLen)) delete config.outputLen;

  const startBody: Omit<RunStartInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.start",
    run: runKey,
    name: opts.name,
    kind: "benchmark",
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    config,
    ...(opts.tags !== undefined && opts.tags.length > 0 ? { tags: opts.tags } : {}),
  };
  const startId = frameId(runKey, "start", startBody);
  const frames: ClientFrameInput[] = [withId(startBody, startId)];

  for (const chunk of chunkPoints(points, runKey, opts, problems, ordered)) {
    const body: Omit<RunBenchmarkInput, "id"> = {
      v: PROTOCOL_VERSION,
      type: "run.benchmark",
      run: runKey,
      points: chunk,
    };
    frames.push(withId(body, frameId(runKey, "points", body)));
  }

  const endBody: Omit<RunEndInput, "id"> = {
    v: PROTOCOL_VERSION,
    type: "run.end",
    run: runKey,
    status: anyCompleted ? "succeeded" : "failed",
    ...(endedAt !== undefined ? { endedAt } : {}),
    ...(anyCompleted
      ? {}
      : { error: "every benchmark result has completed = 0 (all requests failed)" }),
  };
  // A re-import under another name or tags re-applies run.start (which marks the run running
  // again), so the end frame's id depends on the start frame's: the run is ended again too.
  frames.push(withId(endBody, frameId(runKey, "end", { ...endBody, after: startId })));

  return {
    runKey,
    name: opts.name,
    format: first.format,
    files: ordered.map((f) => f.path),
    pointCount: points.length,
    frames,
    problems,
  };
}

/**
 * Splits points into frames of at most `maxPointsPerFrame` points and `maxFrameBytes` serialised
 * bytes (measured with `stringifyJson`, the way frames go on the wire: the envelope plus the points
 * plus separating commas, which is exact). A point too large for a frame alone first has the
 * largest entries of its `raw` removed until it fits (a problem at its file and line).
 * @throws Error when a point does not fit even without `raw`.
 */
function chunkPoints(
  points: BenchmarkPointInput[],
  runKey: string,
  opts: RunOptions,
  problems: ImportProblem[],
  files: readonly ParsedFile[],
): BenchmarkPointInput[][] {
  const budget = opts.maxFrameBytes - envelopeBytes(runKey, "run.benchmark", "points", "points");
  const fitting = points.map((point) => {
    const bytes = utf8ByteLength(stringifyJson(point));
    if (bytes <= budget) return point;
    const shrunk = shrinkRaw(point, budget);
    problems.push({
      file: fileOfOrd(files, point.ord ?? 0),
      line: lineOfOrd(files, point.ord ?? 0),
      message: `result row too large for one frame (${bytes} bytes serialised); left out of raw: ${shrunk.dropped.join(", ") || "(all of raw)"}`,
    });
    if (shrunk.bytes > budget)
      throw new Error(
        `a benchmark point is ${shrunk.bytes} bytes even without raw; frame budget is ${budget} bytes`,
      );
    return shrunk.point;
  });
  return chunkBySize(fitting, opts.maxPointsPerFrame, budget);
}

/** Removes `raw` entries, largest first, until the point fits `budget` bytes. */
function shrinkRaw(
  point: BenchmarkPointInput,
  budget: number,
): { point: BenchmarkPointInput; bytes: number; dropped: string[] } {
  const raw: JsonObject = { ...(point.raw ?? {}) };
  const sizes = Object.entries(raw)
    .map(([k, v]) => [k, utf8ByteLength(stringifyJson(v) ?? "")] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const dropped: string[] = [];
  let candidate: BenchmarkPointInput = { ...point, raw };
  let bytes = utf8ByteLength(stringifyJson(candidate));
  for (const [key] of sizes) {
    if (bytes <= budget) break;
    delete raw[key];
    dropped.push(key);
    candidate = { ...point, raw: { ...raw } };
    bytes = utf8ByteLength(stringifyJson(candidate));
  }
  return { point: candidate, bytes, dropped };
}

/** Maps a run-wide `ord` back to the file it came from (files in canonical order). */
function fileOfOrd(files: readonly ParsedFile[], ord: number): string {
  let offset = 0;
  for (const f of files) {
    if (ord <= offset + f.lineCount) return f.path;
    offset += f.lineCount;
  }
  return files[files.length - 1]?.path ?? "";
}

function lineOfOrd(files: readonly ParsedFile[], ord: number): number {
  let offset = 0;
  for (const f of files) {
    if (ord <= offset + f.lineCount) return ord - offset;
    offset += f.lineCount;
  }
  return ord;
}
