import fs from "node:fs/promises";
import path from "node:path";

import { frameId, withId } from "@/lib/importers/frame-building";
import { sha256Hex } from "@/lib/importers/source-text";
import { PROTOCOL_VERSION, type ClientFrameInput } from "@/lib/protocol";

import { decodeTfEvent } from "./tf-event";
import { readTfRecords } from "./tfrecord";

/**
 * Live import of a TensorBoard log directory (`pitwall watch tensorboard LOGDIR`): every folder
 * under LOGDIR holding event files (`*tfevents*`) is one Pitwall training run, and every scalar
 * written to them becomes a metric point `(tag, step) -> value` as the files grow: `simple_value`
 * scalars (tensorboardX, torch.utils.tensorboard's add_scalar, TF1) and rank-0 numeric tensors
 * (TF2's tf.summary.scalar), unless the tag's plugin metadata names another plugin than `scalars`
 * (text, histograms as tensors…). Histograms, images, audio and graphs are skipped.
 *
 * Each `poll()` reads what was appended since the last one; a record cut short at the end of a
 * file waits for the next poll. `offsets()` / `resume()` carry the read positions across a restart
 * (the watch command keeps them in a state file once the frames they cover are acknowledged or
 * spooled), so a restarted watcher reads only what was written since. Without them it reads the
 * files again from their start, which stores nothing twice either: the run keys derive from the
 * host, LOGDIR and the folder, and a re-sent `(run, key, step)` replaces the stored value with the
 * same one.
 */

/** Points per `run.metrics` frame (the protocol allows more; this keeps frames well under 1 MiB). */
const POINTS_PER_FRAME = 2000;
/** A file read at most this many bytes per poll (the rest on the next ones). */
const READ_BYTES_PER_POLL = 64 * 1024 * 1024;

/** Options of {@link TbLogdirFollower}. */
export interface TbLogdirOptions {
  /** The log directory (absolute). */
  logdir: string;
  /** Salt of the run keys (the host name). */
  keySalt: string;
  host?: string;
  tags?: string[];
}

/** What one poll found. */
export interface TbPoll {
  frames: ClientFrameInput[];
  /** Per run folder with new points: how many and the steps they reach. */
  summaries: {
    folder: string;
    runKey: string;
    points: number;
    keys: string[];
    lastStep: number | string;
  }[];
  problems: { file: string; message: string }[];
}

interface FileState {
  offset: number;
  /** Plugin of each tag, from the first value that named one (TF writes it once per tag). */
  plugins: Map<string, string>;
  dead: boolean;
}

/**
 * Read positions of a log directory, as saved between runs of the watcher: per event file
 * (absolute path) the byte offset of the next unread record and the plugin of each tag seen, and
 * the run keys whose run.start was sent.
 */
export interface TbOffsets {
  files: Record<string, { offset: number; plugins: Record<string, string> }>;
  runs: string[];
}

type MetricPoint = { key: string; step: number | string; value: number; ts?: number };

const MIN_TS_MS = Date.UTC(2000, 0, 1);
const MAX_TS_MS = Date.UTC(2100, 0, 1);

/** Follows a TensorBoard log directory; see the module comment. Call `poll()` repeatedly. */
export class TbLogdirFollower {
  private readonly files = new Map<string, FileState>();
  private readonly startedRuns = new Set<string>();

  constructor(private readonly opts: TbLogdirOptions) {}

  /** Where each event file has been read up to (a copy, for saving once its frames are safe). */
  offsets(): TbOffsets {
    const out: TbOffsets = { files: {}, runs: [...this.startedRuns] };
    for (const [file, st] of this.files)
      if (!st.dead)
        out.files[file] = { offset: st.offset, plugins: Object.fromEntries(st.plugins) };
    return out;
  }

  /**
   * Continues from saved read positions (before the first poll). A file now shorter than its
   * offset was replaced and is read again from its start; a run seen before is not started again.
   */
  resume(saved: TbOffsets): void {
    for (const [file, st] of Object.entries(saved.files))
      this.files.set(file, {
        offset: st.offset,
        plugins: new Map(Object.entries(st.plugins)),
        dead: false,
      });
    for (const run of saved.runs) this.startedRuns.add(run);
  }

  /** The run key of a run folder (relative to LOGDIR; "" for LOGDIR itself). */
  runKeyFor(folder: string): string {
    return `tb:${sha256Hex(`${this.opts.keySalt}\n${this.opts.logdir}\n${folder}`).slice(0, 32)}`;
  }

  /** Reads every event file's new complete records. Never throws (problems are returned). */
  async poll(): Promise<TbPoll> {
    const out: TbPoll = { frames: [], summaries: [], problems: [] };
    const files = await listEventFiles(this.opts.logdir);
    for (const file of files) {
      let state = this.files.get(file);
      if (!state) this.files.set(file, (state = { offset: 0, plugins: new Map(), dead: false }));
      if (state.dead) continue;
      try {
        this.readFile(file, state, await readFrom(file, state.offset), out);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") this.files.delete(file);
        else out.problems.push({ file, message: (err as Error).message });
      }
    }
    return out;
  }

  private readFile(
    file: string,
    state: FileState,
    chunk: { buf: Buffer; base: number; size: number } | null,
    out: TbPoll,
  ): void {
    if (!chunk) return;
    if (chunk.size < state.offset) {
      // Truncated or replaced: read it again from its start.
      state.offset = 0;
      state.plugins.clear();
      return;
    }
    const read = readTfRecords(chunk.buf, chunk.base);
    for (const p of read.problems) {
      out.problems.push({ file, message: `at byte ${p.offset}: ${p.message}` });
      if (p.fatal) state.dead = true;
    }
    state.offset = read.nextOffset;
    const points: MetricPoint[] = [];
    for (const rec of read.records) {
      let event;
      try {
        event = decodeTfEvent(rec.payload);
      } catch (err) {
        out.problems.push({
          file,
          message: `at byte ${rec.start}: not an Event record (${(err as Error).message}); skipped`,
        });
        continue;
      }
      const tsMs = Math.round(event.wallTimeS * 1000);
      for (const v of event.values) {
        if (v.pluginName && v.tag && !state.plugins.has(v.tag))
          state.plugins.set(v.tag, v.pluginName);
        const plugin = state.plugins.get(v.tag);
        const value =
          v.simpleValue ??
          (plugin === undefined || plugin === "scalars" ? v.tensorScalar : undefined);
        if (value === undefined || v.tag === "") continue;
        const point: MetricPoint = { key: v.tag.slice(0, 200), step: event.step, value };
        if (tsMs >= MIN_TS_MS && tsMs < MAX_TS_MS) point.ts = tsMs;
        points.push(point);
      }
    }
    if (points.length === 0) return;
    const folder = path.relative(this.opts.logdir, path.dirname(file));
    const runKey = this.runKeyFor(folder);
    if (!this.startedRuns.has(runKey)) {
      this.startedRuns.add(runKey);
      out.frames.push(this.startFrame(runKey, folder));
    }
    for (let i = 0; i < points.length; i += POINTS_PER_FRAME) {
      const body = {
        v: PROTOCOL_VERSION,
        type: "run.metrics" as const,
        run: runKey,
        points: points.slice(i, i + POINTS_PER_FRAME),
      };
      out.frames.push(withId(body, frameId(runKey, "metrics", body)));
    }
    out.summaries.push({
      folder,
      runKey,
      points: points.length,
      keys: [...new Set(points.map((p) => p.key))],
      lastStep: points.at(-1)!.step,
    });
  }

  private startFrame(runKey: string, folder: string): ClientFrameInput {
    const body = {
      v: PROTOCOL_VERSION,
      type: "run.start" as const,
      run: runKey,
      name: (folder === "" ? path.basename(this.opts.logdir) : folder).slice(0, 300),
      kind: "training" as const,
      config: { source: "tensorboard", logdir: this.opts.logdir, folder },
      ...(this.opts.host !== undefined ? { host: this.opts.host } : {}),
      ...(this.opts.tags !== undefined && this.opts.tags.length > 0
        ? { tags: this.opts.tags }
        : {}),
    };
    return withId(body, frameId(runKey, "start", body));
  }
}

/** Event files under `dir` (any depth), sorted; symlinked folders are not followed. */
async function listEventFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries: import("node:fs").Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listEventFiles(full)));
    else if (e.isFile() && e.name.includes("tfevents")) out.push(full);
  }
  return out.sort();
}

/** The bytes of `file` from `offset` (at most READ_BYTES_PER_POLL), or null when it did not grow. */
async function readFrom(
  file: string,
  offset: number,
): Promise<{ buf: Buffer; base: number; size: number } | null> {
  const fd = await fs.open(file, "r");
  try {
    const { size } = await fd.stat();
    if (size === offset) return null;
    if (size < offset) return { buf: Buffer.alloc(0), base: 0, size };
    const buf = Buffer.alloc(Math.min(size - offset, READ_BYTES_PER_POLL));
    const { bytesRead } = await fd.read(buf, 0, buf.length, offset);
    return { buf: buf.subarray(0, bytesRead), base: offset, size };
  } finally {
    await fd.close();
  }
}
