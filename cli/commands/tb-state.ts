import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";

import type { TbOffsets } from "@/lib/client/tb-logdir";

/**
 * The state file of `pitwall watch tensorboard`: where each event file of a log directory has been
 * read up to, saved once the frames read before it are acknowledged (or spooled), so a restarted
 * watcher (after Ctrl-C, a crash or kill -9) reads only what was written since.
 */

const stateSchema = z.object({
  v: z.literal(1),
  logdir: z.string(),
  files: z.record(
    z.string(),
    z.object({ offset: z.number().int().nonnegative(), plugins: z.record(z.string(), z.string()) }),
  ),
  runs: z.array(z.string()),
});

/**
 * The default state file of LOGDIR: `$XDG_STATE_HOME/pitwall/tensorboard/<sha256(host, logdir)>.json`
 * (XDG_STATE_HOME defaults to ~/.local/state).
 */
export function defaultTbStatePath(
  logdir: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const base = env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), ".local", "state");
  const id = createHash("sha256").update(`${os.hostname()}\n${logdir}`).digest("hex").slice(0, 24);
  return path.join(base, "pitwall", "tensorboard", `${id}.json`);
}

/**
 * Reads the saved read positions of `logdir` from `file`; null when there is none. A file that is
 * unreadable, not valid or of another log directory is reported through `warn` and ignored (the
 * watcher then reads from the start, which stores nothing twice).
 */
export function loadTbState(
  file: string,
  logdir: string,
  warn: (msg: string) => void,
): TbOffsets | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT")
      warn(`state file ${file} not readable (${(err as Error).message}); reading from the start`);
    return null;
  }
  let parsed: ReturnType<typeof stateSchema.safeParse>;
  try {
    parsed = stateSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = { success: false } as ReturnType<typeof stateSchema.safeParse>;
  }
  if (!parsed.success || parsed.data.logdir !== logdir) {
    warn(`state file ${file} is not a saved state of ${logdir}; reading from the start`);
    return null;
  }
  return { files: parsed.data.files, runs: parsed.data.runs };
}

/** Writes the read positions atomically (a temporary file renamed over the old one, fsynced). */
export function saveTbState(file: string, logdir: string, offsets: TbOffsets): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, "w");
  try {
    fs.writeSync(fd, JSON.stringify({ v: 1, logdir, ...offsets }));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
