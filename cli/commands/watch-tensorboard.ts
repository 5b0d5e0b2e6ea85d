import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FlushTimeoutError } from "@/lib/client/socket";
import { TbLogdirFollower } from "@/lib/client/tb-logdir";
import { fail } from "../fail";
import { openSocket, untilStopped } from "./watch-common";

/** `pitwall watch tensorboard LOGDIR` (registered in watch.ts); see lib/client/tb-logdir.ts. */

/** Options of `pitwall watch tensorboard`. */
export interface WatchTensorboardOptions {
  tag: string[];
  host?: string;
  spool?: string;
  pollInterval: number;
  ackTimeout: number;
}

/** Follows LOGDIR until a signal; returns the exit code. */
export async function watchTensorboard(logdir: string, opts: WatchTensorboardOptions): Promise<number> {
  const say = (msg: string) => process.stderr.write(`pitwall: ${msg}\n`);
  const socket = openSocket(opts.spool, say);
  const absolute = path.resolve(logdir);
  const follower = new TbLogdirFollower({ logdir: absolute, keySalt: os.hostname(), host: opts.host, tags: opts.tag });
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
        for (const p of problems) say(`${p.file}: ${p.message}`);
        for (const s of summaries) {
          total += s.points;
          say(`${s.folder || "."}: ${s.points} point(s) of ${s.keys.slice(0, 5).join(", ")}${s.keys.length > 5 ? ", …" : ""} up to step ${s.lastStep}`);
        }
      } while (again);
    })().finally(() => (running = null));
    return running;
  };
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
  const why = await untilStopped(socket);
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
    say(err instanceof FlushTimeoutError ? `${err.pending} frame(s) not acknowledged after ${opts.ackTimeout} s` : (err as Error).message);
    await socket.close();
    return 1;
  }
  await socket.close();
  say(`${total} point(s) from ${absolute}`);
  return 0;
}
