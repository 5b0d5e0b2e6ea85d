import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { FlushTimeoutError } from "@/lib/client/socket";
import { TbLogdirFollower } from "@/lib/client/tb-logdir";

import { fail } from "../fail";
import { defaultTbStatePath, loadTbState, saveTbState } from "./tb-state";
import { openSocket, untilStopped } from "./watch-common";

/** `pitwall watch tensorboard LOGDIR` (registered in watch.ts); see lib/client/tb-logdir.ts. */

/** Options of `pitwall watch tensorboard`. */
export interface WatchTensorboardOptions {
  tag: string[];
  host?: string;
  spool?: string;
  /** Where read positions are kept between runs (default: {@link defaultTbStatePath}); false (`--no-state`): none, every file is read from its start at each start. */
  state?: string | false;
  pollInterval: number;
  ackTimeout: number;
}

/** Follows LOGDIR until a signal; returns the exit code. */
export async function watchTensorboard(
  logdir: string,
  opts: WatchTensorboardOptions,
): Promise<number> {
  const say = (msg: string) => process.stderr.write(`pitwall: ${msg}\n`);
  const socket = openSocket(opts.spool, say);
  const absolute = path.resolve(logdir);
  const follower = new TbLogdirFollower({
    logdir: absolute,
    keySalt: os.hostname(),
    host: opts.host,
    tags: opts.tag,
  });
  const stateFile =
    opts.state === false ? null : path.resolve(opts.state ?? defaultTbStatePath(absolute));
  const saved = stateFile ? loadTbState(stateFile, absolute, say) : null;
  if (saved) {
    follower.resume(saved);
    say(
      `continuing from ${stateFile} (${Object.keys(saved.files).length} event file(s) read before)`,
    );
  }
  // Read positions are saved only once every frame read before them is safe: at once with a
  // spool (frames are on disk when sent), otherwise when the server has acknowledged them.
  let savedSeq = 0;
  let snapshotSeq = 0;
  const save = (seq: number, offsets: ReturnType<typeof follower.offsets>) => {
    if (!stateFile || seq <= savedSeq) return;
    try {
      saveTbState(stateFile, absolute, offsets);
      savedSeq = seq;
    } catch (err) {
      say(`could not save read positions to ${stateFile}: ${(err as Error).message}`);
    }
  };
  const checkpoint = () => {
    if (!stateFile) return;
    const seq = ++snapshotSeq;
    const offsets = follower.offsets();
    if (opts.spool) return save(seq, offsets);
    socket.flush(10 * 60_000).then(
      () => save(seq, offsets),
      () => undefined, // not acknowledged (yet): a later checkpoint covers these frames too
    );
  };
  let total = 0;
  // Polls never overlap: a change notice during a poll asks for one more afterwards.
  let running: Promise<void> | null = null;
  let again = false;
  const poll = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        const { frames, summaries, problems } = await follower.poll();
        for (const f of frames) socket.sendValue(f as unknown as Record<string, unknown>);
        if (frames.length > 0) checkpoint();
        for (const p of problems) say(`${p.file}: ${p.message}`);
        for (const s of summaries) {
          total += s.points;
          say(
            `${s.folder || "."}: ${s.points} point(s) of ${s.keys.slice(0, 5).join(", ")}${s.keys.length > 5 ? ", …" : ""} up to step ${s.lastStep}`,
          );
        }
      } while (again);
    })().finally(() => (running = null));
    return running;
  };
  // Listen for a stop before the first read: a SIGTERM during it would otherwise kill the
  // process by default, without the last poll and flush (seen under load in the int test).
  const stopped = untilStopped(socket);
  await poll();
  let watcher: fs.FSWatcher | null = null;
  try {
    watcher = fs.watch(absolute, { recursive: true }, () => void poll());
    watcher.on("error", () => undefined); // polling goes on
  } catch {
    // no recursive fs.watch here (or no folder yet): polling alone
  }
  const timer = setInterval(() => void poll(), opts.pollInterval);
  say(`watching ${absolute} (one run per folder with event files; Ctrl-C to stop)`);
  const why = await stopped;
  clearInterval(timer);
  watcher?.close();
  await poll();
  if (why instanceof Error) {
    await socket.close();
    fail(why.message, 2);
  }
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
  save(++snapshotSeq, follower.offsets()); // every frame is acknowledged now
  await socket.close();
  say(`${total} point(s) from ${absolute}`);
  return 0;
}
