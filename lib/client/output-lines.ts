/**
 * Splits a child process's output stream into what a terminal would show: `\n` ends a line, `\r`
 * returns to the start of the line so the next text overwrites it (tqdm redraws its bar this way).
 * Used by `pitwall run` to find progress lines and keep the output tail.
 */

/** Longest line kept (the protocol's limit for one `outputTail` line). */
export const MAX_TAIL_LINE_CHARS = 4000;

/** What one `push` produced: overwrite segments (each `\r`- or `\n`-terminated text) and finished lines. */
export interface SplitOutput {
  /** Every non-empty `\r`- or `\n`-terminated piece of text, in order (progress parsing input). */
  segments: string[];
  /** Lines ended by `\n`, as displayed: the last non-empty `\r`-segment of each. */
  lines: string[];
}

/** Incremental splitter for one stream (feed decoded text; keeps the unterminated rest). */
export class LineSplitter {
  private partial = "";
  /** Last non-empty `\r`-terminated segment of the current (unfinished) line. */
  private shown = "";

  /** Feeds decoded text and returns the segments and lines it completed. */
  push(text: string): SplitOutput {
    const out: SplitOutput = { segments: [], lines: [] };
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      const segment = this.partial + text.slice(start, i);
      this.partial = "";
      start = i + 1;
      if (segment !== "") {
        out.segments.push(segment);
        this.shown = segment;
      }
      if (c === 0x0a) {
        out.lines.push(this.shown);
        this.shown = "";
      }
    }
    this.partial += text.slice(start);
    return out;
  }

  /** The unterminated text so far (e.g. tqdm's current bar, drawn without a newline). */
  pending(): string {
    return this.partial;
  }

  /** Ends the stream: the unterminated text becomes a last segment and line (if any). */
  end(): SplitOutput {
    const out: SplitOutput = { segments: [], lines: [] };
    if (this.partial !== "") {
      out.segments.push(this.partial);
      this.shown = this.partial;
      this.partial = "";
    }
    if (this.shown !== "") out.lines.push(this.shown);
    this.shown = "";
    return out;
  }
}

/** A line cut to the protocol's 4000 characters (ending in "…" when cut). */
export function clipLine(line: string): string {
  return line.length > MAX_TAIL_LINE_CHARS ? line.slice(0, MAX_TAIL_LINE_CHARS - 1) + "…" : line;
}

/** The last `maxLines` lines of output (each cut to 4000 chars, all together to `maxChars`). */
export class OutputTail {
  private lines: string[] = [];

  constructor(
    private readonly maxLines = 200,
    private readonly maxChars = 64 * 1024,
  ) {}

  /** Appends finished lines. */
  add(lines: readonly string[]): void {
    for (const line of lines) this.lines.push(clipLine(line));
    if (this.lines.length > this.maxLines * 2) this.lines = this.lines.slice(-this.maxLines);
  }

  /** The kept lines, oldest first, within both limits. */
  snapshot(): string[] {
    const out = this.lines.slice(-this.maxLines);
    let chars = out.reduce((n, l) => n + l.length + 1, 0);
    while (out.length > 0 && chars > this.maxChars) chars -= out.shift()!.length + 1;
    return out;
  }
}
