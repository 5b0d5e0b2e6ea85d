import {
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  sessionTodosFrame,
  type SessionTodosFrame,
} from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import { describeIssues } from "../protocol/validate";
import { claudeCodeTranscript } from "./claude-code-transcript";
import { UnknownFormatError } from "./errors";
import { opencodeExport } from "./opencode-export";
import type { ParsedSession, SessionFormat, SessionFormatModule } from "./session-common";
import {
  baseName,
  naturalCompare,
  sha256Hex,
  utf8ByteLength,
  type ImportFile,
  type ImportProblem,
} from "./source-text";

/**
 * Agent-session import: opencode exports and Claude Code transcripts → `session.todos` frames, one
 * per todo-list write (re-exported by ./index; `pitwall import` reaches it through importFiles).
 */

/** The agent-session modules, in detection order (an export is one JSON document, a transcript JSON lines). */
const SESSION_MODULES: readonly SessionFormatModule[] = [opencodeExport, claudeCodeTranscript];
const SESSION_FILES =
  "agent session (expected an `opencode export` JSON or a Claude Code transcript JSONL)";

/**
 * Detects an agent-session file from its content (key presence, never version strings): an
 * `opencode export` document (`info.id` + `messages`), or a Claude Code transcript (a line among
 * the first 20 with `type`, `sessionId` and `uuid`, or a `summary` line with `leafUuid`). Returns
 * null otherwise. Never throws.
 */
export function detectSessionFormat(text: string): SessionFormat | null {
  return SESSION_MODULES.find((m) => m.recognises(text))?.format ?? null;
}

/** Session import options: `host` the agent ran on (`session.todos.host`; letters, digits, '.', '_', '-'). */
export interface SessionImportOptions {
  host?: string;
}

/**
 * One imported agent session: `sessionKey` (`opencode:<id>`, `claude-code:<sessionId>`, or
 * `claude-code:<sessionId>/agent-<id>` for a subagent), `source`, `title` (null when the file names
 * none), source `format` and `file`, `snapshotCount`, and its `session.todos` `frames` in source
 * order (one per snapshot; each passes `sessionTodosFrame`).
 */
export interface ImportedSession {
  sessionKey: string;
  source: SessionTodosFrame["source"];
  title: string | null;
  format: SessionFormat;
  file: string;
  snapshotCount: number;
  frames: SessionTodosFrame[];
}

/** Result of {@link importSessionFiles}: the sessions, and every problem skipped over. */
export interface SessionImportResult {
  sessions: ImportedSession[];
  problems: ImportProblem[];
}

/** An option of {@link importSessionFiles} that cannot be used (`file` is null: no file is at fault). */
export class SessionImportError extends Error {
  readonly file: string | null;
  constructor(file: string | null, message: string) {
    super(message);
    this.name = "SessionImportError";
    this.file = file;
  }
}

/**
 * The `session.todos` frames of a parsed session, one per snapshot in source order. Frame id:
 * `<session key>/todos/<seq>/<16 hex of sha256 of the frame without id>`, so the same snapshot
 * gives the same id (the server dedupes) and a changed one (new title, host, items) a new id for
 * the same (session, seq), which the server applies as a replacement. A frame the protocol would
 * refuse, or over the 1 MiB frame limit, is a problem at its snapshot's line and left out.
 */
export function buildSessionFrames(
  session: ParsedSession,
  file: string,
  opts: SessionImportOptions = {},
): { frames: SessionTodosFrame[]; problems: ImportProblem[] } {
  const frames: SessionTodosFrame[] = [];
  const problems: ImportProblem[] = [];
  for (const snap of session.snapshots) {
    const body: Omit<SessionTodosFrame, "id"> = {
      v: PROTOCOL_VERSION,
      type: "session.todos",
      session: session.sessionKey,
      source: session.source,
      ...(session.title !== undefined ? { title: session.title } : {}),
      ...(opts.host !== undefined ? { host: opts.host } : {}),
      seq: snap.seq,
      ts: snap.ts,
      items: snap.items,
    };
    const { v, ...rest } = body;
    const frame: SessionTodosFrame = {
      v,
      id: `${session.sessionKey}/todos/${snap.seq}/${sha256Hex(stringifyJson(body)).slice(0, 16)}`,
      ...rest,
    };
    const check = sessionTodosFrame.safeParse(frame);
    if (!check.success) {
      problems.push({
        file,
        line: snap.line,
        message: `todo snapshot not accepted by the protocol: ${describeIssues(check.error)}; skipped`,
      });
      continue;
    }
    const bytes = utf8ByteLength(stringifyJson(frame));
    if (bytes > MAX_FRAME_BYTES) {
      problems.push({
        file,
        line: snap.line,
        message: `todo snapshot is ${bytes} bytes as a frame (at most ${MAX_FRAME_BYTES}); skipped`,
      });
      continue;
    }
    frames.push(frame);
  }
  return { frames, problems };
}

/**
 * Imports agent-session files (opencode exports, Claude Code transcripts) as `session.todos`
 * frames: one frame per todo-list write, in source order (see parseOpencodeExport and
 * parseClaudeCodeTranscript for what counts as a write, its seq and ts).
 * - Files with identical content are imported once (the repeat is a problem at line 0); a file
 *   without any usable snapshot is a problem at line 0 ("nothing imported").
 * - Malformed writes and lines are skipped and reported as `{file, line, message}`.
 * - Files are handled in a canonical order (natural order of base names, then content hash), so the
 *   result does not depend on the order of `files`; a session found in several files (two exports
 *   of one session) appears once per file, and for the same seq the later file's frame is sent last.
 * Deterministic: keys and frame ids derive from the contents (and `host`), never from paths.
 * @throws UnknownFormatError when a file is no agent session (nothing is imported).
 * @throws SessionImportError for an invalid `host`.
 */
export function importSessionFiles(
  files: readonly ImportFile[],
  opts: SessionImportOptions = {},
): SessionImportResult {
  return importSessionFilesAs(files, opts, SESSION_FILES);
}

/** {@link importSessionFiles} with `expected` describing what was looked for in an {@link UnknownFormatError}. */
export function importSessionFilesAs(
  files: readonly ImportFile[],
  opts: SessionImportOptions,
  expected: string,
): SessionImportResult {
  if (opts.host !== undefined) {
    const host = sessionTodosFrame.shape.host.safeParse(opts.host);
    if (!host.success)
      throw new SessionImportError(
        null,
        `invalid host ${JSON.stringify(opts.host)}: ${describeIssues(host.error)}`,
      );
  }
  const detected = files.map((file) => {
    const mod = SESSION_MODULES.find((m) => m.recognises(file.text));
    if (!mod)
      throw new UnknownFormatError(
        file.path,
        file.text.trim() === ""
          ? "the file is empty"
          : "no opencode export document or Claude Code transcript line found",
        expected,
      );
    return { file, mod, hash: sha256Hex(file.text) };
  });
  detected.sort(
    (a, b) =>
      naturalCompare(baseName(a.file.path), baseName(b.file.path)) ||
      (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0),
  );

  const sessions: ImportedSession[] = [];
  const problems: ImportProblem[] = [];
  const byHash = new Map<string, string>();
  for (const { file, mod, hash } of detected) {
    const firstPath = byHash.get(hash);
    if (firstPath !== undefined) {
      problems.push({
        file: file.path,
        line: 0,
        message: `same content as ${firstPath}; imported once`,
      });
      continue;
    }
    byHash.set(hash, file.path);
    const parsed = mod.parse(file.path, file.text);
    problems.push(...parsed.problems);
    let imported = 0;
    for (const session of parsed.sessions) {
      const built = buildSessionFrames(session, file.path, opts);
      problems.push(...built.problems);
      if (built.frames.length === 0) continue;
      imported++;
      sessions.push({
        sessionKey: session.sessionKey,
        source: session.source,
        title: session.title ?? null,
        format: mod.format,
        file: file.path,
        snapshotCount: built.frames.length,
        frames: built.frames,
      });
    }
    if (imported === 0)
      problems.push({
        file: file.path,
        line: 0,
        message: `no usable todo-list write in this ${mod.tool} file; nothing imported`,
      });
  }
  return { sessions, problems };
}
