#!/usr/bin/env node
// Pitwall's Claude Code hook. `npx pitwall agent install claude-code` runs it as a command hook
// (`node <this file> claude-code`) only where a process per event is needed: SessionStart (checks
// the token, registers the session with the local forwarder and starts the heartbeat) and
// PermissionRequest (a permission prompt: opens an inbox item and waits for a person's decision;
// for ExitPlanMode proposes the plan and waits). Every other event (each tool call's PostToolUse
// among them) goes to Claude Code's HTTP hook and the local forwarder (`node <this file> forward`,
// lib/forwarder.mjs): no Node start per tool call.
// As a command hook it still handles any event the same way (older installs, other agents).
// Never breaks the agent: bad input or a missing token prints one line to stderr and exits 0.
// `node <this file> flush` is the background spool flusher. See docs/agents.md.
import { fileURLToPath } from "node:url";

import { parseHookInput } from "./lib/claude-events.mjs";
import { loadConfig } from "./lib/config.mjs";
import { ensureForwarder, registerSession, runForwarder } from "./lib/forwarder.mjs";
import { applyEvent } from "./lib/handle-event.mjs";
import { agentPid, ensureHeartbeat, runHeartbeat, stopHeartbeat } from "./lib/heartbeat.mjs";
import { openNotice } from "./lib/notice.mjs";
import { permissionGate } from "./lib/permission-gate.mjs";
import { decisionForAgent, planFromMarkdown, proposeAndWait } from "./lib/plan.mjs";
import { deliver, postFrames, runFlusher } from "./lib/spool.mjs";
import { startProblem } from "./lib/start-check.mjs";
import { readState, writeState } from "./lib/todo-state.mjs";

const entryFile = fileURLToPath(import.meta.url);
const warn = (line) => process.stderr.write(`pitwall hook: ${line}\n`);

function readStdin() {
  return new Promise((resolve) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (c) => (text += c));
    process.stdin.on("end", () => resolve(text));
    process.stdin.on("error", () => resolve(text));
  });
}

const permissionOutput = (decision) =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });

/** Holds ExitPlanMode until a person decides in Pitwall; prints the PermissionRequest answer (or nothing: the terminal asks). */
async function planGate(cfg, event, state, toolInput) {
  const session = event.session_id.slice(0, 200);
  const body = typeof toolInput.plan === "string" ? toolInput.plan : "";
  const { title, items } = planFromMarkdown(body);
  const n = (state.plans ?? 0) + 1;
  const key = `cc:${session}:plan:${n}`.slice(0, 200);
  const supersedes =
    state.lastPlan && state.lastPlan.decision === "changes_requested"
      ? state.lastPlan.key
      : undefined;
  const timeoutS = cfg.planTimeoutS;
  const frame = {
    v: 1,
    id: `${key}:propose`,
    type: "plan.propose",
    plan: key,
    session,
    title,
    items,
    expiresInS: Math.max(10, Math.min(30 * 86_400, Math.round(timeoutS))),
  };
  if (body) frame.body = body.slice(0, 200_000);
  if (supersedes) frame.supersedes = supersedes;
  const now = Date.now();
  await deliver(
    cfg,
    [
      {
        v: 1,
        id: `cc:${session}:act:${now}:waiting`,
        type: "session.activity",
        session,
        source: "claude-code",
        state: "waiting",
        ts: now,
        detail: `plan: ${title}`.slice(0, 2000),
      },
    ],
    entryFile,
  );
  writeState(cfg, session, {
    ...state,
    plans: n,
    waiting: true,
    gatePid: process.pid,
    lastPlan: { key, decision: null },
  });

  const decision = await proposeAndWait(cfg, frame, { timeoutS, postFrames });
  const after = Date.now();
  await deliver(
    cfg,
    [
      {
        v: 1,
        id: `cc:${session}:act:${after}:working`,
        type: "session.activity",
        session,
        source: "claude-code",
        state: "working",
        ts: after,
      },
    ],
    entryFile,
  );
  writeState(cfg, session, {
    ...readState(cfg, session),
    waiting: false,
    gatePid: undefined,
    lastPlan: { key, decision: decision?.decision ?? "expired" },
  });
  if (!decision || decision.decision === "expired") {
    warn(
      `no decision on plan ${key} within ${timeoutS} s: ${cfg.planFallback === "deny" ? "denied" : "asking in the terminal"}`,
    );
    if (cfg.planFallback === "deny")
      process.stdout.write(
        permissionOutput({
          behavior: "deny",
          message: `No decision on the plan in Pitwall within ${timeoutS} s; do not proceed.`,
        }),
      );
    return;
  }
  const answer = decisionForAgent(decision, { title, items, body });
  process.stdout.write(
    permissionOutput(
      answer.allow
        ? { behavior: "allow", updatedInput: { ...toolInput, plan: answer.plan } }
        : { behavior: "deny", message: answer.message },
    ),
  );
}

async function main() {
  const cfg = loadConfig();
  if (process.argv[2] === "flush") {
    if (cfg.url && cfg.token) await runFlusher(cfg);
    return;
  }
  if (process.argv[2] === "forward") {
    await runForwarder(cfg, entryFile, { log: warn });
    return;
  }
  if (process.argv[2] === "heartbeat") {
    const endSource = ["opencode", "claude-code"].includes(process.argv[5]) ? process.argv[5] : "";
    // Claude Code's heartbeat also keeps the local forwarder up (started again when killed).
    const keepForwarder = endSource === "opencode" ? null : () => ensureForwarder(cfg, entryFile);
    // argv[6]: Claude Code's transcript file, watched for Esc-interrupts (no hook runs for one).
    const transcript = endSource === "opencode" ? "" : (process.argv[6] ?? "");
    if (cfg.url && cfg.token && process.argv[3] && Number(process.argv[4]) > 1)
      await runHeartbeat(
        cfg,
        process.argv[3],
        Number(process.argv[4]),
        postFrames,
        undefined,
        endSource,
        keepForwarder,
        transcript,
      );
    return;
  }
  const parsed = parseHookInput(await readStdin());
  if (!parsed.ok) return warn(`ignored a malformed hook event (${parsed.error})`);
  const event = parsed.event;
  if (!cfg.url || !cfg.token) {
    warn("PITWALL_URL / PITWALL_TOKEN not set (see `npx pitwall agent status`); nothing sent");
    // The plan gate's fail mode is configuration: with PITWALL_PLAN_FALLBACK=deny a plan is never let through unreviewed.
    if (
      cfg.planFallback === "deny" &&
      event.hook_event_name === "PermissionRequest" &&
      event.tool_name === "ExitPlanMode"
    ) {
      process.stdout.write(
        permissionOutput({
          behavior: "deny",
          message: "Pitwall is not configured for plan reviews on this machine; do not proceed.",
        }),
      );
    }
    return;
  }
  // The event's state change (also stops permission gates the event shows were answered in the terminal).
  const { frames, state: next, planGate: gate } = await applyEvent(cfg, event);
  // Asked at once, in parallel with sending the frames: Pitwall down or slow hands the prompt back within 2 s.
  const permission =
    event.hook_event_name === "PermissionRequest" && event.tool_name !== "ExitPlanMode"
      ? permissionGate(cfg, event)
      : null;
  // A wrong token or URL (or a forwarder that will not take the session) is said once per
  // session, at its start: as Claude Code's `systemMessage` hook output, which 2.1.332 shows in the
  // interactive terminal ("SessionStart:startup says: …") and `-p` stream-json carries in its
  // hook_response line, and on stderr (`claude --debug`).
  const agent = agentPid();
  // At SessionStart the local forwarder learns this session's config and agent (started when none
  // answers), so the HTTP hooks of the session's other events find it.
  const [problem, forwarderProblem] =
    event.hook_event_name === "SessionStart"
      ? await Promise.all([
          startProblem(cfg, postFrames),
          registerSession(cfg, event.session_id, agent, entryFile),
        ])
      : [null, null];
  if (frames.length) await deliver(cfg, frames, entryFile);
  // A Notification run as a command hook (older installs): the notice goes straight to Pitwall.
  if (event.hook_event_name === "Notification") await openNotice(cfg, event);
  // The session's sign of life while its agent process lives (see lib/heartbeat.mjs); started
  // after the session's first frame went out, so the first beat finds the session.
  if (event.hook_event_name === "SessionStart" || event.hook_event_name === "UserPromptSubmit")
    ensureHeartbeat(
      cfg,
      event.session_id,
      entryFile,
      agent,
      "",
      undefined,
      typeof event.transcript_path === "string" ? event.transcript_path : "",
    );
  if (event.hook_event_name === "SessionEnd") stopHeartbeat(cfg, event.session_id);
  const problems = [problem, forwarderProblem].filter(Boolean);
  for (const line of problems) warn(line);
  if (problems.length)
    process.stdout.write(JSON.stringify({ systemMessage: `Pitwall: ${problems.join(" ")}` }));
  if (gate) await planGate(cfg, event, next, gate);
  if (permission) await permission;
}

main()
  .catch((err) => warn(`failed (${err?.message ?? err}); the agent goes on`))
  .finally(() => {
    process.exitCode = 0;
  });
