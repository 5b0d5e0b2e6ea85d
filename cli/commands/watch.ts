import os from "node:os";
import path from "node:path";
import { Option, type Command } from "commander";

import {
  BenchFollower,
  type BenchFollowerOptions,
  type BenchFollowerState,
} from "@/lib/client/bench-follow";
import { FileTail, type TailPosition } from "@/lib/client/file-tail";
import { FlushTimeoutError } from "@/lib/client/socket";
import { BENCHMARK_SCENARIOS, parseLenientJson, type BenchmarkPointInput } from "@/lib/protocol";

import { fail } from "../fail";
import { defaultBenchStatePath, loadBenchState, saveBenchState } from "./bench-state";
import { openSocket, parseMs, parseSeconds, parseStallAfter, untilStopped } from "./watch-common";
import { watchTensorboard, type WatchTensorboardOptions } from "./watch-tensorboard";

/** A running follow of a benchmark output file (see {@link followBenchFile}). */
export interface BenchFollow {
  follower: BenchFollower;
  /** Where the file has been read up to (null before it was found). */
  position(): TailPosition | null;
  /** Reads what is left (complete lines only) and stops watching. */
  stop(): Promise<void>;
}

/** Where a follow stands: the tail's position and the follower's state. */
interface BenchFollowState {
  tail: TailPosition | null;
  follower: BenchFollowerState;
}

/** Anything frames can be sent to (a PitwallSocket). */
interface FrameSink {
  sendValue(frame: Record<string, unknown>): string;
}

/**
 * Follows `file` (SGLang / vLLM JSON-lines results as they are appended) and sends one point per
 * complete line through `sink`, saying one line per point or skipped line through `say`.
 * @throws nothing: read errors are said and retried at the next change.
 */
export async function followBenchFile(
  sink: FrameSink,
  opts: BenchFollowerOptions & {
    fromEnd?: boolean;
    pollMs?: number;
    /** Continue from a saved position and follower state (`watch bench`'s state file). */
    resume?: { tail: TailPosition; follower: BenchFollowerState };
    /** Called after the frames of new lines were sent, with where the follow stands then (to save it). */
    onSent?: (state: BenchFollowState) => void;
  },
  say: (msg: string) => void,
): Promise<BenchFollow> {
  const follower = new BenchFollower(opts);
  if (opts.resume) follower.restore(opts.resume.follower);
  const tail = new FileTail(opts.file, {
    resume: opts.resume?.tail,
    fromEnd: opts.fromEnd,
    pollMs: opts.pollMs,
    completeWithoutNewline: isJsonObject,
    onReset: () => {
      say(`${opts.file} was truncated or replaced: reading it again from its start`);
      follower.reset();
    },
    onError: (err) => say(`cannot read ${opts.file}: ${err.message}`),
    onLines: (lines) => {
      const { frames, problems, points } = follower.add(lines);
      for (const f of frames) sink.sendValue(f as unknown as Record<string, unknown>);
      for (const p of problems) say(`${p.file}:${p.line}: ${p.message}`);
      for (const p of points) say(`${path.basename(opts.file)}:${p.ord}: ${describePoint(p)}`);
      if (frames.length > 0)
        opts.onSent?.({ tail: tail.position(), follower: follower.snapshot() });
    },
  });
  await tail.start();
  return { follower, position: () => tail.position(), stop: () => tail.stop() };
}

/**
 * Whether an unterminated last line is a whole JSON object: vLLM `bench serve --append-result`
 * writes the newline before each next result, so its newest result ends without one (a half
 * written object never parses).
 */
function isJsonObject(text: string): boolean {
  try {
    const v = parseLenientJson(text); // Python's bare NaN / Infinity included
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** `concurrency 16: 577.8 output tok/s, TTFT p99 812 ms` for a point. */
function describePoint(p: BenchmarkPointInput): string {
  const level =
    p.concurrency != null
      ? `concurrency ${p.concurrency}`
      : p.requestRate != null
        ? `request rate ${p.requestRate}/s`
        : "unbounded";
  const tok =
    typeof p.outputTokPerS === "number"
      ? `${p.outputTokPerS.toFixed(1)} output tok/s`
      : "no output tok/s";
  const ttft = typeof p.ttftMsP99 === "number" ? `, TTFT p99 ${Math.round(p.ttftMsP99)} ms` : "";
  return `${level}: ${tok}${ttft}`;
}

interface WatchBenchOptions {
  name?: string;
  key?: string;
  tag: string[];
  host?: string;
  scenario?: (typeof BENCHMARK_SCENARIOS)[number];
  spool?: string;
  /** State file (default: {@link defaultBenchStatePath}); false (`--no-state`): read the file from its start at each start. */
  state?: string | false;
  pollInterval: number;
  ackTimeout: number;
  stallAfter: number;
}

/** Registers `pitwall watch bench FILE` and `pitwall watch tensorboard LOGDIR`. */
export function registerWatchCommands(program: Command): void {
  const watch = program
    .command("watch")
    .description(
      "follow files other tools write and report them live (PITWALL_URL, PITWALL_TOKEN)",
    );
  watch
    .command("bench")
    .argument(
      "<file>",
      "SGLang bench_serving --output-file or vLLM bench serve --append-result JSON lines, being written",
    )
    .description(
      "import each result line as it is appended, so the sweep's charts grow while it runs; Ctrl-C ends the run",
    )
    .option("--name <name>", "run name (default: the file's base name)")
    .option(
      "--key <key>",
      "run key (default: from this host, the file's path and its first result line, so a restart continues the same run)",
    )
    .addOption(new Option("--tag <tag...>", "tag(s) for the run").default([]))
    .option("--host <host>", "where the benchmark ran (default: the token's host)")
    .addOption(
      new Option("--scenario <name>", "scenario of every point (default throughput)").choices(
        BENCHMARK_SCENARIOS,
      ),
    )
    .option("--spool <dir>", "keep unacknowledged frames in this folder")
    .option(
      "--state <file>",
      "where the read position is kept between runs (default: ~/.local/state/pitwall/bench/<file hash>.json)",
    )
    .option(
      "--no-state",
      "read the file from its start at each start (a restart stores nothing twice either way)",
    )
    .option(
      "--stall-after <seconds>",
      "seconds without a new result before the run shows as stale (5-604800; one level of a sweep can take long)",
      parseStallAfter,
      3600,
    )
    .option(
      "--poll-interval <ms>",
      "how often the file is checked when no change notice arrives",
      (v) => parseMs(v),
      1000,
    )
    .option("--ack-timeout <seconds>", "at exit, how long to wait for acks", parseSeconds, 30)
    .action(async (file: string, opts: WatchBenchOptions) => {
      process.exit(await watchBench(file, opts));
    });
  watch
    .command("tensorboard")
    .argument(
      "<logdir>",
      "a TensorBoard log directory (SpecForge, Lightning, torchtitan, HF Trainer report_to=tensorboard…)",
    )
    .description(
      "follow every event file under LOGDIR as it grows: one training run per folder, its scalars as metrics; Ctrl-C stops (runs stay open)",
    )
    .addOption(new Option("--tag <tag...>", "tag(s) for the runs").default([]))
    .option("--host <host>", "where the training runs (default: the token's host)")
    .option("--spool <dir>", "keep unacknowledged frames in this folder")
    .option(
      "--state <file>",
      "where read positions are kept between runs (default: ~/.local/state/pitwall/tensorboard/<logdir hash>.json)",
    )
    .option(
      "--no-state",
      "read every event file from its start (a restart stores nothing twice either way)",
    )
    .option(
      "--poll-interval <ms>",
      "how often the folder is read when no change notice arrives",
      (v) => parseMs(v),
      2000,
    )
    .option("--ack-timeout <seconds>", "at exit, how long to wait for acks", parseSeconds, 30)
    .action(async (logdir: string, opts: WatchTensorboardOptions) => {
      process.exit(await watchTensorboard(logdir, opts));
    });
}

async function watchBench(file: string, opts: WatchBenchOptions): Promise<number> {
  const say = (msg: string) => process.stderr.write(`pitwall: ${msg}\n`);
  const socket = openSocket(opts.spool, say);
  const absolute = path.resolve(file);
  const stateFile =
    opts.state === false ? null : path.resolve(opts.state ?? defaultBenchStatePath(absolute));
  const saved = stateFile ? loadBenchState(stateFile, absolute, say) : null;
  if (saved)
    say(
      `continuing from ${stateFile} (line ${saved.tail.lines}, ${saved.follower.pointCount} point(s) sent before)`,
    );
  // The position is saved only once every frame read before it is safe: at once with a spool
  // (frames are on disk when sent), otherwise when the server has acknowledged them.
  let savedSeq = 0;
  let snapshotSeq = 0;
  const save = (seq: number, state: BenchFollowState) => {
    if (!stateFile || !state.tail || seq <= savedSeq) return;
    try {
      saveBenchState(stateFile, absolute, { tail: state.tail, follower: state.follower });
      savedSeq = seq;
    } catch (err) {
      say(`could not save the read position to ${stateFile}: ${(err as Error).message}`);
    }
  };
  const checkpoint = (state: BenchFollowState) => {
    if (!stateFile) return;
    const seq = ++snapshotSeq;
    if (opts.spool) return save(seq, state);
    socket.flush(10 * 60_000).then(
      () => save(seq, state),
      () => undefined, // not acknowledged (yet): a later checkpoint covers these frames too
    );
  };
  // Listen for a stop before the first read (as watch-tensorboard.ts): a SIGTERM during it would
  // otherwise kill the process by default, without stopping the follower and flushing.
  const stopped = untilStopped(socket);
  const follow = await followBenchFile(
    socket,
    {
      resume: saved ?? undefined,
      onSent: checkpoint,
      file: absolute,
      runKey: opts.key,
      keySalt: os.hostname(),
      name: opts.name,
      host: opts.host,
      tags: opts.tag,
      scenario: opts.scenario,
      stallAfterS: opts.stallAfter,
      pollMs: opts.pollInterval,
    },
    say,
  );
  say(`watching ${absolute} (Ctrl-C to stop)`);
  const why = await stopped;
  await follow.stop();
  if (why instanceof Error) {
    await socket.close();
    fail(why.message, 2);
  }
  const end = follow.follower.end();
  if (end) socket.sendValue(end as unknown as Record<string, unknown>);
  try {
    await socket.flush(opts.ackTimeout * 1000);
  } catch (err) {
    say(
      err instanceof FlushTimeoutError
        ? `${err.pending} frame(s) not acknowledged after ${opts.ackTimeout} s`
        : (err as Error).message,
    );
    await socket.close();
    return 1;
  }
  // Every frame is acknowledged now.
  save(++snapshotSeq, { tail: follow.position(), follower: follow.follower.snapshot() });
  await socket.close();
  say(
    `${follow.follower.points} point(s) from ${absolute}${follow.follower.runKey ? ` in run ${follow.follower.runKey}` : ""}`,
  );
  return 0;
}
