// Pitwall agent hooks: an Esc-interrupt seen in Claude Code's transcript. Claude Code 2.1.332 runs
// no hook when the person interrupts (no Stop, no PostToolUseFailure, no idle Notification: checked
// in a pseudo-terminal on 2026-12-06), so Pitwall would show Working until the next prompt. The
// transcript (the hook input's `transcript_path`, JSON lines) does record it: a `user` entry whose
// text starts with "[Request interrupted by user" ("... for tool use" when a tool was running).
// The session's heartbeat process (lib/heartbeat.mjs) reads what the transcript gained since its
// last look and reports the session idle at the interrupt's time.

const MARK = "[Request interrupted by user";
const MAX_READ_BYTES = 4_000_000;

/** Whether a transcript entry is the interrupt marker Claude Code writes. */
function isInterrupt(entry) {
  if (entry?.type !== "user") return false;
  const content = entry.message?.content;
  if (typeof content === "string") return content.startsWith(MARK);
  return (
    Array.isArray(content) &&
    content.some((b) => b?.type === "text" && typeof b.text === "string" && b.text.startsWith(MARK))
  );
}

/** Whether an entry shows the agent busy again after an interrupt (a new prompt, a model reply). */
function isActivity(entry) {
  if (entry?.type === "assistant") return true;
  if (entry?.type !== "user" || isInterrupt(entry)) return false;
  const content = entry.message?.content;
  return (
    typeof content === "string" ||
    (Array.isArray(content) && content.some((b) => b?.type === "text"))
  );
}

/**
 * Scans transcript `text` (whole JSON lines) for an interrupt that nothing followed.
 * @returns {number|null} the interrupt's time (ms since epoch; the entry's `timestamp`, else
 *   `nowMs`), or null when there is none or the agent went on after it.
 */
export function interruptIn(text, nowMs = Date.now()) {
  let at = null;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (isInterrupt(entry)) {
      const t = Date.parse(entry.timestamp);
      at = Number.isFinite(t) ? t : nowMs;
    } else if (isActivity(entry)) at = null;
  }
  return at;
}

/**
 * A watcher of one transcript file from its current end: `check()` reads what was appended since
 * the last call (whole lines only) and returns an unfollowed interrupt's time, or null. Never throws.
 * `fs` is node:fs (injected so the caller's import is reused).
 */
export function watchTranscript(fs, file) {
  const sizeOf = () => {
    try {
      return fs.statSync(file).size;
    } catch {
      return 0;
    }
  };
  let offset = sizeOf();
  return {
    check(nowMs = Date.now()) {
      const size = sizeOf();
      if (size < offset) offset = 0; // replaced (a new file): read it from the start
      if (size === offset) return null;
      const length = Math.min(size - offset, MAX_READ_BYTES);
      let text = "";
      try {
        const fd = fs.openSync(file, "r");
        try {
          const buf = Buffer.alloc(length);
          const n = fs.readSync(fd, buf, 0, length, offset);
          text = buf.subarray(0, n).toString("utf8");
        } finally {
          fs.closeSync(fd);
        }
      } catch {
        return null;
      }
      // Only whole lines: a half-written last line is read again next time.
      const end = text.lastIndexOf("\n");
      if (end < 0) return length === MAX_READ_BYTES ? ((offset += length), null) : null;
      offset += Buffer.byteLength(text.slice(0, end + 1));
      return interruptIn(text.slice(0, end + 1), nowMs);
    },
  };
}
