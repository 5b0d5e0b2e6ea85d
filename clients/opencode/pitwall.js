// Pitwall's opencode plugin (opencode 1.18 plugin API), installed by
// `npx pitwall agent install opencode` as a one-line stub in .opencode/plugins/ that re-exports
// this file. `todo.updated` → session.todos; session.status / session.idle / session.error /
// permission prompts → session.activity; a `pitwall_propose_plan` tool that blocks until a person
// decides in Pitwall and returns the decision, edits and comment to the model; permission
// requests (`permission.asked`) become inbox items answered from Pitwall (see permission.js).
// Never breaks the agent: every handler swallows its errors (one line on stderr).
import path from "node:path";
import { fileURLToPath } from "node:url";

import { loadConfig } from "../agent-hooks/lib/config.mjs";
import { gitBranch } from "../agent-hooks/lib/git.mjs";
import { ensureHeartbeat } from "../agent-hooks/lib/heartbeat.mjs";
import { decisionForAgent, planFromMarkdown, proposeAndWait } from "../agent-hooks/lib/plan.mjs";
import { deliver, postFrames } from "../agent-hooks/lib/spool.mjs";
import { readState, writeState } from "../agent-hooks/lib/todo-state.mjs";
import { opencodePermissionHandler } from "./permission.js";

const flusherEntry = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "agent-hooks",
  "claude-code.mjs",
);
const SOURCE = "opencode";
const clip = (s, n) =>
  typeof s === "string" ? (s.length > n ? `${s.slice(0, n - 1)}…` : s) : undefined;
const warn = (line) => process.stderr.write(`pitwall plugin: ${line}\n`);

/** One opencode todo ({content, status, priority, id?}) in the wire shape (unknown fields dropped). */
export function toTodoItem(t) {
  const o = t && typeof t === "object" ? t : {};
  const item = {
    content: clip(String(o.content ?? ""), 20_000),
    status: clip(String(o.status || "pending"), 50),
  };
  if (typeof o.id === "string" && o.id) item.id = clip(o.id, 200);
  if (typeof o.priority === "string" && o.priority) item.priority = clip(o.priority, 50);
  return item;
}

/**
 * Frames for one opencode bus event (`{type, properties}`, opencode 1.18), given the session's
 * stored state and the clock. @returns {{frames: object[], state: object} | null} null: not ours.
 */
export function opencodeEventFrames(event, state, nowMs, facts = {}) {
  const p = event?.properties ?? {};
  const session = clip(p.sessionID ?? p.info?.id ?? p.info?.sessionID, 200);
  if (!session) return null;
  const activity = (s, detail) => {
    const f = {
      v: 1,
      id: `oc:${session}:act:${nowMs}:${s}`,
      type: "session.activity",
      session,
      source: SOURCE,
      state: s,
      ts: nowMs,
      ...facts,
    };
    if (detail) f.detail = clip(detail, 2000);
    return f;
  };
  switch (event.type) {
    case "todo.updated": {
      if (!Array.isArray(p.todos)) return null;
      const seq = (state.seq ?? 0) + 1;
      return {
        frames: [
          {
            v: 1,
            id: `oc:${session}:todos:${seq}`,
            type: "session.todos",
            session,
            source: SOURCE,
            seq,
            ts: nowMs,
            items: p.todos.slice(0, 1000).map(toTodoItem),
          },
        ],
        state: { ...state, seq },
      };
    }
    case "session.created": {
      const f = activity("idle", "session created");
      if (typeof p.info?.directory === "string") f.cwd = clip(p.info.directory, 4000);
      return { frames: [f], state };
    }
    case "session.status": {
      const t = p.status?.type;
      const s = t === "busy" || t === "retry" ? "working" : t === "idle" ? "idle" : null;
      // opencode repeats "busy" on every step: only changes are sent.
      if (!s || state.lastState === s) return { frames: [], state };
      return { frames: [activity(s)], state: { ...state, lastState: s } };
    }
    case "session.idle":
      if (state.lastState === "idle") return { frames: [], state };
      return { frames: [activity("idle")], state: { ...state, lastState: "idle" } };
    case "session.error":
      return {
        frames: [activity("idle", clip(p.error?.data?.message ?? p.error?.name ?? "error", 2000))],
        state: { ...state, lastState: "idle" },
      };
    case "permission.updated":
    case "permission.asked":
      return {
        frames: [
          activity("waiting", `permission: ${p.title ?? p.type ?? p.permission ?? "a tool"}`),
        ],
        state: { ...state, lastState: "waiting" },
      };
    case "session.deleted":
      return { frames: [activity("ended")], state: { ...state, lastState: "ended" } };
    default:
      return null;
  }
}

/** opencode tools that edit files or run commands (Pitwall decides with lib/plans/work-tools.ts). */
const WORK_TOOLS = new Set(["bash", "edit", "write", "patch", "multiedit"]);

/**
 * The frame that reports a tool run (opencode's `tool.execute.after` input: {tool, sessionID})
 * while the session's plan waits for a decision (state.lastPlan without one), so Pitwall can flag
 * work done before the decision; null for other tools or when no plan waits.
 */
export function toolActivityFrame(input, state, nowMs, facts = {}) {
  const tool = typeof input?.tool === "string" ? input.tool : "";
  const session = typeof input?.sessionID === "string" ? input.sessionID.slice(0, 200) : "";
  if (!session || !WORK_TOOLS.has(tool) || !state.lastPlan || state.lastPlan.decision) return null;
  return {
    v: 1,
    id: `oc:${session}:act:${nowMs}:tool:${clip(tool, 100)}`,
    type: "session.activity",
    session,
    source: SOURCE,
    state: "working",
    ts: nowMs,
    ...facts,
    detail: `ran ${clip(tool, 200)}`,
    tool: clip(tool, 200),
  };
}

/** The plugin: opencode calls it once per project with its context. */
export const PitwallPlugin = async ({ directory, client }) => {
  const cfg = loadConfig();
  if (!cfg.url || !cfg.token)
    warn("PITWALL_URL / PITWALL_TOKEN not set (see `npx pitwall agent status`); nothing is sent");
  const facts = typeof directory === "string" ? { cwd: clip(directory, 4000) } : {};
  const branch = typeof directory === "string" ? gitBranch(directory) : undefined;
  if (branch) facts.gitBranch = clip(branch, 500);
  // Permission requests go to Pitwall's inbox; the decision is replied through opencode's client.
  const permissions =
    client && cfg.url && cfg.token
      ? opencodePermissionHandler(cfg, { client, directory, gitBranch: branch, warn })
      : () => false;
  const hooks = {
    event: async ({ event }) => {
      try {
        if (!cfg.url || !cfg.token) return;
        const session = event?.properties?.sessionID ?? event?.properties?.info?.id;
        if (!session) return;
        permissions(event);
        // While this opencode process lives the session has a heartbeat; when it ends (`opencode
        // run` finishing, or the TUI closed) the heartbeat process reports the session ended.
        ensureHeartbeat(
          cfg,
          String(session).slice(0, 200),
          flusherEntry,
          process.pid,
          "opencode",
          "node",
        );
        const state = readState(cfg, `oc-${session}`);
        const out = opencodeEventFrames(event, state, Date.now(), facts);
        if (!out || out.frames.length === 0) return;
        writeState(cfg, `oc-${session}`, out.state);
        await deliver(cfg, out.frames, flusherEntry);
      } catch (err) {
        warn(`event ${event?.type} not sent (${err?.message ?? err})`);
      }
    },
  };
  // A tool ran: while a plan waits for a decision, Pitwall is told which (worked without approval).
  hooks["tool.execute.after"] = async (input) => {
    try {
      if (!cfg.url || !cfg.token || typeof input?.sessionID !== "string") return;
      const state = readState(cfg, `oc-${input.sessionID.slice(0, 200)}`);
      const frame = toolActivityFrame(input, state, Date.now(), facts);
      if (frame) await deliver(cfg, [frame], flusherEntry);
    } catch (err) {
      warn(`tool activity not sent (${err?.message ?? err})`);
    }
  };
  let z = null;
  try {
    z = (await import("zod")).z;
  } catch {
    warn("zod not found next to the plugin: the pitwall_propose_plan tool is unavailable");
  }
  if (z) {
    hooks.tool = {
      pitwall_propose_plan: {
        description:
          "Propose a plan to the team in Pitwall and wait until a person approves, requests changes or rejects it. " +
          "Call it before starting any multi-step work. Returns the decision, the (possibly edited) steps and the reviewer's comment.",
        args: {
          plan: z
            .string()
            .describe("the plan in markdown: a '# Title' line, then the steps as a numbered list"),
        },
        async execute(args, context) {
          if (!cfg.url || !cfg.token)
            return cfg.planFallback === "deny"
              ? "Pitwall is not configured here: do not proceed."
              : "Pitwall is not configured here: ask the user in the terminal instead.";
          const session = clip(context?.sessionID ?? "unknown", 200);
          const body = String(args.plan ?? "");
          const { title, items } = planFromMarkdown(body);
          const state = readState(cfg, `oc-${session}`);
          const n = (state.plans ?? 0) + 1;
          const key = `oc:${session}:plan:${n}`.slice(0, 200);
          const frame = {
            v: 1,
            id: `${key}:propose`,
            type: "plan.propose",
            plan: key,
            session,
            title,
            items,
            body: body.slice(0, 200_000),
            expiresInS: Math.max(10, Math.round(cfg.planTimeoutS)),
          };
          if (state.lastPlan?.decision === "changes_requested")
            frame.supersedes = state.lastPlan.key;
          writeState(cfg, `oc-${session}`, {
            ...state,
            plans: n,
            lastPlan: { key, decision: null },
            lastState: "waiting",
          });
          const now = Date.now();
          await deliver(
            cfg,
            [
              {
                v: 1,
                id: `oc:${session}:act:${now}:waiting`,
                type: "session.activity",
                session,
                source: SOURCE,
                state: "waiting",
                ts: now,
                detail: `plan: ${title}`.slice(0, 2000),
              },
            ],
            flusherEntry,
          );
          const decision = await proposeAndWait(cfg, frame, {
            timeoutS: cfg.planTimeoutS,
            postFrames,
          });
          writeState(cfg, `oc-${session}`, {
            ...readState(cfg, `oc-${session}`),
            lastPlan: { key, decision: decision?.decision ?? "expired" },
            lastState: "working",
          });
          // The agent goes on with the answer: no longer waiting for a person (opencode's next
          // "busy" is not sent, since the state already says working).
          const after = Date.now();
          await deliver(
            cfg,
            [
              {
                v: 1,
                id: `oc:${session}:act:${after}:working`,
                type: "session.activity",
                session,
                source: SOURCE,
                state: "working",
                ts: after,
              },
            ],
            flusherEntry,
          );
          if (!decision || decision.decision === "expired") {
            return cfg.planFallback === "deny"
              ? `No decision on the plan within ${cfg.planTimeoutS} s: do not proceed.`
              : `No decision on the plan within ${cfg.planTimeoutS} s: ask the user in the terminal before proceeding.`;
          }
          const answer = decisionForAgent(decision, { title, items, body }, "pitwall_propose_plan");
          return answer.allow ? `APPROVED. Carry out this plan:\n${answer.plan}` : answer.message;
        },
      },
    };
  }
  return hooks;
};
