import fs from "node:fs";
import path from "node:path";

/**
 * Follows a file that another program appends lines to (`tail -F` for one file): every complete
 * line (ending in `\n`) is handed over once, with its 1-based line number; a partially written
 * last line waits for its newline (unless `completeWithoutNewline` says it is whole). Change notices come from `fs.watch` on the file's folder (so a
 * file that does not exist yet, or is replaced, is picked up), with a polling read every `pollMs`
 * as the fallback where `fs.watch` is silent (network file systems, some containers). A file that
 * shrinks or is replaced (another inode) is read again from its start (`onReset` is called first).
 */

/** One complete line of the followed file. */
export interface TailLine {
  /** 1-based line number in the file. */
  line: number;
  /** The line's text without its `\n` (and without a `\r` before it). */
  text: string;
}

/**
 * Where a tail stands in its file, to carry across a restart ({@link FileTail.position},
 * `FileTailOptions.resume`): the file's inode, the byte offset just past the last complete line,
 * that line's number, and the unterminated last line already handed over, if any.
 */
export interface TailPosition {
  ino: number;
  offset: number;
  lines: number;
  handedPartial: string | null;
}

/** Options of {@link FileTail}. */
export interface FileTailOptions {
  /**
   * Continue from a position saved earlier: lines up to it are not handed over again. Ignored
   * (the file is read from its start, `onReset` first) when the file is another one by then
   * (other inode) or shorter than the offset.
   */
  resume?: TailPosition;
  /** Called with the new complete lines, in order, after each read that found some. */
  onLines: (lines: TailLine[]) => void | Promise<void>;
  /** Called when the file shrank or was replaced, before its lines are read again from line 1. */
  onReset?: () => void;
  /** Called on a read error other than "the file does not exist yet" (the tail keeps trying). */
  onError?: (err: Error) => void;
  /** Skip what the file holds at start (lines are still counted): follow only what is appended. */
  fromEnd?: boolean;
  /** Polling period in ms (default 1000); fs.watch notices usually come sooner. */
  pollMs?: number;
  /**
   * Says whether an unterminated last line is complete all the same (e.g. it parses as a whole
   * JSON object: vLLM's `--append-result` writes the newline *before* each next record, so its
   * last record has none). Such a line is handed over at once and not again when its newline
   * arrives. Default: never (every line waits for its newline).
   */
  completeWithoutNewline?: (text: string) => boolean;
}

const CHUNK_BYTES = 1 << 20;

/** A follower of one appended-to file; see the module comment. Call `start()`, later `stop()`. */
export class FileTail {
  private offset = 0;
  private lineNo = 0;
  private ino: number | null = null;
  /** Bytes after the last newline read so far (an unfinished line). */
  private partial: Buffer = Buffer.alloc(0);
  /** Text of the unterminated last line already handed over (completeWithoutNewline), if any. */
  private handedPartial: string | null = null;
  private chain: Promise<void> = Promise.resolve();
  private watcher: fs.FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    readonly file: string,
    private readonly opts: FileTailOptions,
  ) {
    if (opts.resume) {
      this.ino = opts.resume.ino;
      this.offset = opts.resume.offset;
      this.lineNo = opts.resume.lines;
      this.handedPartial = opts.resume.handedPartial;
    }
  }

  /**
   * Where the tail stands now (see {@link TailPosition}); inside `onLines`, just past the lines
   * handed over. Null before the file was first found.
   */
  position(): TailPosition | null {
    if (this.ino === null) return null;
    return {
      ino: this.ino,
      offset: this.offset - this.partial.length,
      lines: this.lineNo,
      handedPartial: this.handedPartial,
    };
  }

  /** Complete lines handed over so far (the line number of the last one). */
  get lines(): number {
    return this.lineNo;
  }

  /** Reads what the file holds now (or skips it with `fromEnd`) and starts watching. */
  async start(): Promise<void> {
    if (this.opts.fromEnd) await this.skipExisting();
    else await this.readNow();
    try {
      this.watcher = fs.watch(path.dirname(path.resolve(this.file)), (_event, name) => {
        if (name === null || name === path.basename(this.file)) void this.readNow();
      });
      this.watcher.on("error", () => {
        this.watcher?.close();
        this.watcher = null; // polling goes on
      });
    } catch {
      // no fs.watch here: polling alone
    }
    this.poller = setInterval(() => void this.readNow(), this.opts.pollMs ?? 1000);
  }

  /** Stops watching after one last read; an unfinished last line is not handed over. */
  async stop(): Promise<void> {
    if (this.stopped) return this.chain;
    await this.readNow();
    this.stopped = true;
    this.watcher?.close();
    if (this.poller) clearInterval(this.poller);
    await this.chain;
  }

  /** Reads whatever was appended since the last read (reads never overlap). */
  readNow(): Promise<void> {
    if (this.stopped) return this.chain;
    this.chain = this.chain
      .then(() => this.readAppended())
      .catch((err: unknown) => this.opts.onError?.(err as Error));
    return this.chain;
  }

  /** Counts the lines already in the file without handing them over. */
  private async skipExisting(): Promise<void> {
    await this.readAppended(() => undefined);
  }

  private async readAppended(
    deliver: FileTailOptions["onLines"] = this.opts.onLines,
  ): Promise<void> {
    let fd: fs.promises.FileHandle;
    try {
      fd = await fs.promises.open(this.file, "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    try {
      const st = await fd.stat();
      if ((this.ino !== null && st.ino !== this.ino) || st.size < this.offset) {
        this.offset = 0;
        this.lineNo = 0;
        this.partial = Buffer.alloc(0);
        this.handedPartial = null;
        this.opts.onReset?.();
      }
      this.ino = st.ino;
      const out: TailLine[] = [];
      while (this.offset < st.size) {
        const buf = Buffer.alloc(Math.min(CHUNK_BYTES, st.size - this.offset));
        const { bytesRead } = await fd.read(buf, 0, buf.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        let data = Buffer.concat([this.partial, buf.subarray(0, bytesRead)]);
        // Split on the newline byte, never inside a UTF-8 sequence (0x0A occurs in none).
        for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
          const raw = data.subarray(0, nl).toString("utf8");
          const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
          const already = this.handedPartial !== null && this.handedPartial === text;
          this.handedPartial = null;
          this.lineNo++;
          if (!already) out.push({ line: this.lineNo, text });
          data = data.subarray(nl + 1);
        }
        this.partial = Buffer.from(data);
      }
      const pending = this.partial.length ? this.partial.toString("utf8") : "";
      if (
        pending &&
        pending !== this.handedPartial &&
        this.opts.completeWithoutNewline?.(pending)
      ) {
        this.handedPartial = pending;
        out.push({ line: this.lineNo + 1, text: pending });
      }
      if (out.length) await deliver(out);
    } finally {
      await fd.close();
    }
  }
}
