// Pitwall agent hooks: Claude Code's "waiting for your input" notifications as inbox notices.
// A notice is shown in the inbox and cannot be answered there (the person answers in the agent's
// terminal); Pitwall closes it when the session moves on (its next "working" or "ended" activity).
import path from "node:path";

/** Notification types that mean "the agent waits for the person" and are no permission prompt (that one is its own inbox item). */
const NOTICE_TYPES = new Set(["idle_prompt", "elicitation_dialog"]);

/**
 * The POST /api/inbox body of a notice for Claude Code hook `event`, or null when the event is
 * not such a Notification. `nowMs` makes the key; notices expire after a day unless closed earlier.
 */
export function noticeFor(event, { nowMs = Date.now(), gitBranch } = {}) {
  if (event?.hook_event_name !== "Notification" || !NOTICE_TYPES.has(event.notification_type))
    return null;
  const session = String(event.session_id ?? "").slice(0, 200);
  if (!session) return null;
  const message =
    typeof event.message === "string" && event.message.trim()
      ? event.message.trim()
      : "Claude is waiting for your input";
  const body = {
    key: `cc:${session.slice(0, 150)}:notice:${nowMs}`,
    kind: "notice",
    agent: "claude-code",
    session,
    toolName: String(event.notification_type),
    summary: message.slice(0, 2000),
    expiresInS: 86_400,
  };
  if (typeof event.cwd === "string" && event.cwd)
    Object.assign(body, { cwd: event.cwd.slice(0, 4000), project: path.basename(event.cwd) });
  if (gitBranch) body.gitBranch = String(gitBranch).slice(0, 500);
  return body;
}

/**
 * Opens the notice of `event` in Pitwall (one POST, 2 s limit, no retry: a lost notice only
 * means the inbox does not show that the agent waits). Never throws. @returns true when stored.
 */
export async function openNotice(cfg, event, opts = {}) {
  const body = noticeFor(event, opts);
  if (!body || !cfg.url || !cfg.token) return false;
  try {
    const res = await fetch(`${cfg.url}/api/inbox`, {
      method: "POST",
      headers: { authorization: `Bearer ${cfg.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(cfg.permissionSendTimeoutMs ?? 2000),
    });
    return res.status === 201;
  } catch {
    return false;
  }
}
