// Pitwall agent hooks: what one Claude Code hook event does to the session's stored state, shared by
// the command hook (claude-code.mjs) and the local forwarder (forwarder.mjs): stop permission gates
// the event shows were answered in the terminal; under the session's lock, free a plan gate nobody waits on, turn the event into frames and store the new state.
import { claudeActions } from "./claude-events.mjs";
import { taskItemsFor } from "./claude-tasks.mjs";
import { gitBranch } from "./git.mjs";
import { stopStalePermissionGates } from "./permission.mjs";
import { gateIsStale, stopGate } from "./plan-gate-guard.mjs";
import { withSessionLock } from "./session-lock.mjs";
import { readState, writeState } from "./todo-state.mjs";

/**
 * Applies `event` (parsed hook stdin / HTTP hook body) to its session's state under cfg.stateDir.
 * @returns {Promise<{frames: object[], state: object, planGate: object|null}>} the frames to
 *   deliver, the stored state, and for ExitPlanMode's PermissionRequest the tool input to hold.
 */
export async function applyEvent(cfg, event) {
  // A tool call's PostToolUse (or a new prompt, Stop, SessionEnd) shows a waiting permission gate was answered in the terminal.
  stopStalePermissionGates(cfg, event, stopGate);
  const needsBranch =
    event.hook_event_name === "SessionStart" || event.hook_event_name === "UserPromptSubmit";
  const branch = needsBranch && typeof event.cwd === "string" ? gitBranch(event.cwd) : undefined;
  // Read, decide and store under the session's lock: parallel tool calls run their hooks at once.
  return await withSessionLock(cfg, event.session_id, () => {
    const before = readState(cfg, event.session_id);
    // The person answered the plan in the terminal (or the agent ended): free the waiting gate.
    if (gateIsStale(before, event) && stopGate(before.gatePid))
      writeState(cfg, event.session_id, {
        ...before,
        gatePid: undefined,
        lastPlan: { ...before.lastPlan, decision: "answered_in_terminal" },
      });
    const out = claudeActions(event, readState(cfg, event.session_id), {
      nowMs: Date.now(),
      sendPrompts: cfg.sendPrompts,
      gitBranch: branch,
      taskItems: taskItemsFor(event),
    });
    if (out.frames.length) writeState(cfg, event.session_id, out.state);
    return out;
  });
}
