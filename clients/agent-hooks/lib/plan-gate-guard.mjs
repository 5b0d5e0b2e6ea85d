// Pitwall agent hooks: a plan gate nobody needs any more. The hook process that holds
// ExitPlanMode (PermissionRequest) long-polls Pitwall for a decision. When the person answers in
// the terminal instead, Claude Code goes on; the next hook event of that session shows it. Then
// the waiting gate process is stopped, its poll ends early, and Pitwall closes the plan as
// "answered in the terminal" (or "agent ended" after SessionEnd) within seconds.
import fs from "node:fs";

/** Hook events that can only arrive once the plan dialog was answered (not Notification: it fires while the dialog shows). */
const AFTER_ANSWER = new Set([
  "UserPromptSubmit",
  "Stop",
  "StopFailure",
  "SessionEnd",
  "PostToolUse",
  "PostToolUseFailure",
  "PreToolUse",
]);

/**
 * Whether `event` proves the session's plan gate (state.gatePid, undecided state.lastPlan) no
 * longer holds the agent. The gate's own ExitPlanMode PermissionRequest never counts.
 */
export function gateIsStale(state, event) {
  if (!state?.gatePid || !state.lastPlan || state.lastPlan.decision !== null) return false;
  return AFTER_ANSWER.has(event.hook_event_name);
}

/**
 * Stops the gate process `pid` (SIGTERM) when it is still our hook (checked on /proc where there
 * is one, so a recycled pid is never hit). @returns whether a signal was sent.
 */
export function stopGate(pid) {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
    if (!cmdline.includes("claude-code.mjs")) return false;
  } catch {
    if (process.platform === "linux") return false; // gone already
  }
  try {
    process.kill(pid, "SIGTERM");
    return true;
  } catch {
    return false;
  }
}
