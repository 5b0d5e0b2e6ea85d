// Pitwall agent hooks: tool permissions decided in Pitwall's inbox. Claude Code's
// PermissionRequest (any tool but ExitPlanMode, which is the plan gate) opens an inbox item and
// waits for a person's decision. Faults never approve: when Pitwall is down or slow (no answer
// within 2 s), on timeout, or when the item was closed, the hook prints nothing and Claude Code
// asks in its terminal as usual.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import { openAndAwait } from "./inbox-wait.mjs";

const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Unified-style diff lines of `before` → `after` (whole hunks; no context matching). */
function hunk(file, before, after) {
  const minus =
    before === ""
      ? []
      : String(before)
          .split("\n")
          .map((l) => `-${l}`);
  const plus =
    after === ""
      ? []
      : String(after)
          .split("\n")
          .map((l) => `+${l}`);
  return [
    `--- ${file}`,
    `+++ ${file}`,
    `@@ -${minus.length} +${plus.length} @@`,
    ...minus,
    ...plus,
  ].join("\n");
}

/**
 * What a person sees of a tool call: a one-line summary and, for file edits (Edit, MultiEdit,
 * Write, NotebookEdit), a diff. @returns {{summary: string, diff?: string}}
 */
export function describeToolCall(toolName, input) {
  const inp = input && typeof input === "object" ? input : {};
  const file =
    typeof inp.file_path === "string"
      ? inp.file_path
      : typeof inp.notebook_path === "string"
        ? inp.notebook_path
        : "";
  if (toolName === "Bash" && typeof inp.command === "string")
    return { summary: clip(inp.command.split("\n")[0] || "Bash", 300) };
  if (toolName === "Edit" && file)
    return {
      summary: `Edit ${file}`,
      diff: hunk(file, inp.old_string ?? "", inp.new_string ?? ""),
    };
  if (toolName === "MultiEdit" && file && Array.isArray(inp.edits))
    return {
      summary: `Edit ${file} (${inp.edits.length} edits)`,
      diff: inp.edits.map((e) => hunk(file, e?.old_string ?? "", e?.new_string ?? "")).join("\n"),
    };
  if (toolName === "Write" && file)
    return { summary: `Write ${file}`, diff: hunk(file, "", inp.content ?? "") };
  if (toolName === "WebFetch" && typeof inp.url === "string")
    return { summary: `WebFetch ${clip(inp.url, 280)}` };
  if (toolName === "AskUserQuestion" && Array.isArray(inp.questions))
    return {
      summary: clip(
        inp.questions
          .map((q) => (typeof q?.question === "string" ? q.question : ""))
          .filter(Boolean)
          .join(" · ") || "A question",
        300,
      ),
    };
  if (file) return { summary: `${toolName} ${file}` };
  return { summary: clip(`${toolName} ${JSON.stringify(inp)}`, 300) };
}

/**
 * The PermissionRequest answer for a decision from Pitwall (Claude Code 2.1.x hook output:
 * `hookSpecificOutput.decision` = `{behavior: "allow", updatedInput?}` or `{behavior: "deny",
 * message}`); null = no answer (the terminal asks). `editedInput` fields replace the tool's input.
 */
export function permissionAnswer(decision, toolInput) {
  if (!decision || (decision.decision !== "allow" && decision.decision !== "deny")) return null;
  const who = decision.decidedBy || "a reviewer";
  let out;
  if (decision.decision === "allow") {
    out = { behavior: "allow" };
    if (decision.editedInput && typeof decision.editedInput === "object")
      out.updatedInput = { ...(toolInput ?? {}), ...decision.editedInput };
  } else {
    out = {
      behavior: "deny",
      message: `${who} denied this in Pitwall${decision.message ? `: ${decision.message}` : "."}`,
    };
  }
  return { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: out } };
}

/** Fingerprint of one tool call (tool + input), to find the gate a later PostToolUse belongs to. */
export const callFingerprint = (toolName, input) =>
  crypto
    .createHash("sha256")
    .update(`${toolName}\n${JSON.stringify(input ?? {})}`)
    .digest("hex")
    .slice(0, 24);

const gateDir = (cfg, session) =>
  path.join(
    cfg.stateDir,
    "permission-gates",
    String(session)
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .slice(0, 150),
  );

/** Events after which a waiting permission gate of the session is stale (answered in the terminal). */
const ENDS_ALL = new Set(["UserPromptSubmit", "Stop", "StopFailure", "SessionEnd"]);

/**
 * Stops the session's permission gates that `event` shows were answered in the terminal: the
 * gate of the same tool call on PostToolUse / PostToolUseFailure, every gate on UserPromptSubmit / Stop / SessionEnd.
 * Cheap when none waits (one failed readdir). `stop(pid)` signals a gate process.
 */
export function stopStalePermissionGates(cfg, event, stop) {
  const oneCall =
    event.hook_event_name === "PostToolUse" || event.hook_event_name === "PostToolUseFailure";
  if (!ENDS_ALL.has(event.hook_event_name) && !oneCall) return;
  const dir = gateDir(cfg, event.session_id);
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const fp = oneCall ? callFingerprint(event.tool_name, event.tool_input) : null;
  for (const name of names) {
    const [pid, gateFp] = name.split("-");
    if (fp && gateFp !== fp) continue;
    stop(Number(pid));
    fs.rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * Opens an inbox item for Claude Code's PermissionRequest `event` and waits for the decision.
 * The item is sent straight (never spooled) with a 2 s limit (`cfg.permissionSendTimeoutMs`);
 * when an inbox rule decides it, the POST's answer carries the decision and it returns at once;
 * else GET /api/inbox/:id/decision is long-polled until `cfg.permissionTimeoutS`, failing over
 * between server URLs. @returns the decision ({decision, message, editedInput, decidedBy}) or
 * null (Pitwall unreachable, timeout, item closed).
 */
export async function requestPermission(
  cfg,
  event,
  {
    agent = "claude-code",
    gitBranch,
    sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
    now = Date.now,
  } = {},
) {
  const session = String(event.session_id).slice(0, 200);
  const toolName = String(event.tool_name ?? "tool").slice(0, 200);
  const input = event.tool_input && typeof event.tool_input === "object" ? event.tool_input : {};
  const { summary, diff } = describeToolCall(toolName, input);
  const timeoutS = Math.max(5, Math.round(cfg.permissionTimeoutS ?? 600));
  const cwd = typeof event.cwd === "string" ? event.cwd : undefined;
  const body = {
    key: `cc:${session}:perm:${now()}:${crypto.randomBytes(4).toString("hex")}`,
    // AskUserQuestion is a question: its answers come back as the tool's `answers` input.
    kind: toolName === "AskUserQuestion" ? "question" : "permission",
    agent,
    session,
    toolName,
    summary,
    input,
    expiresInS: timeoutS,
  };
  if (diff) body.diff = diff.slice(0, 200_000);
  if (cwd) Object.assign(body, { cwd, project: path.basename(cwd) });
  if (gitBranch) body.gitBranch = gitBranch;
  // Mark this process as the gate of this call, so the terminal's answer stops it (see stopStalePermissionGates).
  const onOpened = (id) => {
    const dir = gateDir(cfg, session);
    const marker = path.join(dir, `${process.pid}-${callFingerprint(toolName, event.tool_input)}`);
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(marker, String(id));
    } catch {
      // no marker: the item closes on its expiry instead
    }
    return () => fs.rmSync(marker, { force: true });
  };
  return openAndAwait(cfg, body, {
    timeoutS,
    onOpened,
    label: toolName === "AskUserQuestion" ? "question" : "permission request",
    sleep,
    now,
  });
}
