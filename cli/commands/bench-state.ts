import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";

import type { BenchFollowerState } from "@/lib/client/bench-follow";
import type { TailPosition } from "@/lib/client/file-tail";
import { BENCHMARK_FORMATS } from "@/lib/importers/source-common";
import { parseLenientJson } from "@/lib/protocol";

/**
 * The state file of `pitwall watch bench FILE`: where the file has been read up to and what the
 * follower learnt from the lines before (run key, config facts, point count), saved once the
 * frames read before it are acknowledged (or spooled), so a restarted watcher (after Ctrl-C, a
 * crash or kill -9) reads only the lines appended since. Like `watch tensorboard`'s (tb-state.ts).
 * Numbers in the saved facts may be non-finite (SGLang writes `"request_rate": Infinity`): the file
 * keeps them as Python's bare tokens.
 */

/** What is saved: the tail's position and the follower's state. */
export interface BenchState {
  tail: TailPosition;
  follower: BenchFollowerState;
}

const stateSchema = z.object({
  v: z.literal(1),
  file: z.string(),
  tail: z.object({
    ino: z.number().int().nonnegative(),
    offset: z.number().int().nonnegative(),
    lines: z.number().int().nonnegative(),
    handedPartial: z.string().nullable(),
  }),
  follower: z.object({
    format: z.enum(BENCHMARK_FORMATS).nullable(),
    key: z.string().nullable(),
    facts: z.array(z.record(z.string(), z.unknown())),
    startedAt: z.number().nullable(),
    endedAt: z.number().nullable(),
    anyCompleted: z.boolean(),
    pointCount: z.number().int().nonnegative(),
    lastStartId: z.string().nullable(),
  }),
});

/**
 * The default state file of FILE: `$XDG_STATE_HOME/pitwall/bench/<sha256(host, file)>.json`
 * (XDG_STATE_HOME defaults to ~/.local/state).
 */
export function defaultBenchStatePath(
  file: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const base = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), ".local", "state");
  const id = createHash("sha256").update(`${os.hostname()}\n${file}`).digest("hex").slice(0, 24);
  return path.join(base, "pitwall", "bench", `${id}.json`);
}

/**
 * Reads the saved state of `file` from `stateFile`; null when there is none or it no longer fits
 * the file (another inode, or shorter than the saved offset: a new sweep written to the same
 * path, read from its start as a new run). A state file that is unreadable, not valid or of
 * another file is reported through `warn` and ignored; the watcher then reads from the start,
 * which stores nothing twice.
 */
export function loadBenchState(
  stateFile: string,
  file: string,
  warn: (msg: string) => void,
): BenchState | null {
  let text: string;
  try {
    text = fs.readFileSync(stateFile, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT")
      warn(
        `state file ${stateFile} not readable (${(err as Error).message}); reading from the start`,
      );
    return null;
  }
  let parsed: ReturnType<typeof stateSchema.safeParse>;
  try {
    parsed = stateSchema.safeParse(parseLenientJson(text));
  } catch {
    parsed = { success: false } as ReturnType<typeof stateSchema.safeParse>;
  }
  if (!parsed.success || parsed.data.file !== file) {
    warn(`state file ${stateFile} is not a saved state of ${file}; reading from the start`);
    return null;
  }
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    warn(`${file} is gone since ${stateFile} was saved; reading it from the start when it appears`);
    return null;
  }
  if (st.ino !== parsed.data.tail.ino || st.size < parsed.data.tail.offset) {
    warn(
      `${file} was replaced or truncated since ${stateFile} was saved; reading it from the start`,
    );
    return null;
  }
  return { tail: parsed.data.tail, follower: parsed.data.follower as BenchFollowerState };
}

const NON_FINITE = "@@pitwall-non-finite@@";

/** Writes the state atomically (a temporary file renamed over the old one, fsynced). */
export function saveBenchState(stateFile: string, file: string, state: BenchState): void {
  const text = JSON.stringify({ v: 1, file, ...state }, (_k, v: unknown) =>
    typeof v === "number" && !Number.isFinite(v) ? `${NON_FINITE}${v}` : v,
  ).replace(new RegExp(`"${NON_FINITE}(NaN|Infinity|-Infinity)"`, "g"), "$1");
  fs.mkdirSync(path.dirname(stateFile), { recursive: true });
  const tmp = `${stateFile}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, "w");
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, stateFile);
}
