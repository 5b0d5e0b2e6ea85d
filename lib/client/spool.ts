import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * On-disk spool of unacknowledged frames, so a worker *process* restart loses nothing.
 *
 * Layout of a spool folder (documented in docs/worker-clients.md):
 * - `frames.jsonl`: one frame per line, exactly the JSON text sent on the wire, appended
 *   *before* the frame is first sent.
 * - `acked.txt`: one JSON string per line: ids the server acknowledged or rejected (settled).
 *   Appending an id is cheaper than rewriting `frames.jsonl` on every ack.
 * - `lock`: `{"pid":…,"host":…}` of the client using the folder; a second live client is refused.
 *
 * A frame is pending when its id is in `frames.jsonl` and not in `acked.txt`. Opening a spool
 * compacts it (rewrites `frames.jsonl` with the pending frames only, via a temp file and rename,
 * then empties `acked.txt`); so does a running client every `compactAfter` settled ids. A crash at
 * any point leaves either the old or the new `frames.jsonl` whole, and a stale `acked.txt` only
 * names ids that are no longer pending. A line cut short by a crash mid-append is skipped: such a
 * frame was never sent (it is written before sending), and the worker that wrote it died with it.
 * Appends are not fsynced: the spool survives a killed process, not a power cut.
 */

/** A frame as stored: its id and its exact wire text. */
export interface SpooledFrame {
  id: string;
  text: string;
}

/** Thrown when another live client (this or another process) holds the spool folder. */
export class SpoolLockedError extends Error {
  constructor(dir: string, holder: string) {
    super(
      `spool folder ${dir} is in use by ${holder}; give each worker process its own --spool folder`,
    );
    this.name = "SpoolLockedError";
  }
}

const FRAMES = "frames.jsonl";
const ACKED = "acked.txt";
const LOCK = "lock";

/** A spool folder opened (and locked) by one client. Synchronous: calls are short appends. */
export class FrameSpool {
  /** Frames found pending when the spool was opened, in the order they were first written. */
  readonly pending: SpooledFrame[];
  /** Lines of `frames.jsonl` that could not be read at open (cut short by a crash). */
  readonly skippedLines: number;
  private framesFd: number;
  private ackedFd: number;
  private settledSinceCompaction = 0;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly compactAfter: number,
    loaded: { pending: SpooledFrame[]; skipped: number },
  ) {
    this.pending = loaded.pending;
    this.skippedLines = loaded.skipped;
    this.framesFd = fs.openSync(path.join(dir, FRAMES), "a");
    this.ackedFd = fs.openSync(path.join(dir, ACKED), "a");
  }

  /**
   * Opens (creating it if needed) and locks `dir`, loads its pending frames and compacts it.
   * `compactAfter`: settled ids after which the running client rewrites the files (default 5000).
   * @throws SpoolLockedError when another live client holds the folder; fs errors as thrown.
   */
  static open(dir: string, opts: { compactAfter?: number } = {}): FrameSpool {
    fs.mkdirSync(dir, { recursive: true });
    takeLock(dir);
    try {
      const loaded = loadPending(dir);
      rewrite(dir, loaded.pending);
      return new FrameSpool(dir, opts.compactAfter ?? 5000, loaded);
    } catch (err) {
      releaseLock(dir);
      throw err;
    }
  }

  /** Appends frames (before they are sent). */
  append(frames: readonly SpooledFrame[]): void {
    if (this.closed || frames.length === 0) return;
    fs.writeSync(this.framesFd, frames.map((f) => f.text).join("\n") + "\n");
  }

  /** Records ids as settled (acked or rejected). Returns true when a compaction is due. */
  settle(ids: readonly string[]): boolean {
    if (this.closed || ids.length === 0) return false;
    fs.writeSync(this.ackedFd, ids.map((id) => JSON.stringify(id)).join("\n") + "\n");
    this.settledSinceCompaction += ids.length;
    return this.settledSinceCompaction >= this.compactAfter;
  }

  /** Rewrites the folder to hold exactly `pending` (the caller's unsettled frames, in order). */
  compact(pending: Iterable<SpooledFrame>): void {
    if (this.closed) return;
    fs.closeSync(this.framesFd);
    fs.closeSync(this.ackedFd);
    rewrite(this.dir, [...pending]);
    this.framesFd = fs.openSync(path.join(this.dir, FRAMES), "a");
    this.ackedFd = fs.openSync(path.join(this.dir, ACKED), "a");
    this.settledSinceCompaction = 0;
  }

  /** Compacts to `pending` and releases the lock; the folder keeps the pending frames for the next client. */
  close(pending: Iterable<SpooledFrame>): void {
    if (this.closed) return;
    this.compact(pending);
    this.closed = true;
    fs.closeSync(this.framesFd);
    fs.closeSync(this.ackedFd);
    releaseLock(this.dir);
  }
}

/** Reads `frames.jsonl` minus the ids in `acked.txt`, keeping first-written order and one entry per id. */
function loadPending(dir: string): { pending: SpooledFrame[]; skipped: number } {
  const settled = new Set<string>();
  for (const line of readLines(path.join(dir, ACKED))) {
    try {
      const id: unknown = JSON.parse(line);
      if (typeof id === "string") settled.add(id);
    } catch {
      // a line cut short by a crash: that ack was not recorded, the frame is resent and deduped
    }
  }
  const pending: SpooledFrame[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const text of readLines(path.join(dir, FRAMES))) {
    let id: unknown;
    try {
      id = (JSON.parse(text) as { id?: unknown }).id;
    } catch {
      skipped++;
      continue;
    }
    if (typeof id !== "string") {
      skipped++;
      continue;
    }
    if (settled.has(id) || seen.has(id)) continue;
    seen.add(id);
    pending.push({ id, text });
  }
  return { pending, skipped };
}

function readLines(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return text.split("\n").filter((l) => l.trim() !== "");
}

/** Replaces `frames.jsonl` atomically (temp file + rename), then empties `acked.txt`. */
function rewrite(dir: string, pending: readonly SpooledFrame[]): void {
  const tmp = path.join(dir, `${FRAMES}.tmp`);
  fs.writeFileSync(tmp, pending.length ? pending.map((f) => f.text).join("\n") + "\n" : "");
  fs.renameSync(tmp, path.join(dir, FRAMES));
  // Only after the rename: a crash in between leaves ids in acked.txt that are no longer pending.
  fs.writeFileSync(path.join(dir, ACKED), "");
}

function takeLock(dir: string): void {
  const file = path.join(dir, LOCK);
  const me = JSON.stringify({ pid: process.pid, host: os.hostname() });
  for (let tries = 0; tries < 3; tries++) {
    try {
      fs.writeFileSync(file, me, { flag: "wx" });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let holder: { pid?: unknown; host?: unknown } = {};
    try {
      holder = JSON.parse(fs.readFileSync(file, "utf8")) as typeof holder;
    } catch {
      // unreadable or half-written lock: treat as stale
    }
    const pid = typeof holder.pid === "number" ? holder.pid : null;
    const sameHost = holder.host === os.hostname();
    if (pid !== null && (!sameHost || pid === process.pid || isAlive(pid))) {
      throw new SpoolLockedError(dir, `process ${pid} on ${String(holder.host)}`);
    }
    fs.rmSync(file, { force: true });
  }
  throw new SpoolLockedError(dir, "another process (lock changed while taking it)");
}

function releaseLock(dir: string): void {
  fs.rmSync(path.join(dir, LOCK), { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
