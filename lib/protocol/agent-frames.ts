import { z } from "zod";

import { base, clientKey, epochMs, hostName, nonNegInt, PROTOCOL_VERSION } from "./primitives";

/**
 * Frames about agent sessions (opencode, Claude Code): todo-list snapshots, live activity state,
 * and plans waiting for a person. Part of the `clientFrame` union in frames.ts; documented in
 * docs/protocol.md and docs/agents.md.
 */

export const SESSION_SOURCES = ["opencode", "claude-code", "pushed"] as const;
/** Statuses with their own meaning; any other status string is kept and shown neutrally. */
export const TODO_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;

/** One todo item as the agent's `todowrite` tool wrote it. */
export const todoItem = z.strictObject({
  id: z.string().max(200).optional(),
  content: z.string().max(20_000),
  /** pending | in_progress | completed | cancelled, or any other word (e.g. "failed"). */
  status: z.string().min(1).max(50),
  priority: z.string().max(50).optional(),
  activeForm: z.string().max(20_000).optional(),
});

/**
 * `session.todos`: one snapshot of an agent session's todo list (the whole list, as each
 * `todowrite` rewrites it). Snapshots are ordered by `ts`, then `seq` (position in the source).
 * Re-sending a snapshot with the same (session, seq) replaces it.
 */
export const sessionTodosFrame = z.strictObject({
  ...base,
  type: z.literal("session.todos"),
  session: clientKey,
  source: z.enum(SESSION_SOURCES),
  title: z.string().max(500).optional(),
  host: hostName.optional(),
  seq: nonNegInt,
  ts: epochMs,
  items: z.array(todoItem).max(1000),
});

/**
 * Where a live agent session stands: `working` (the agent is busy), `waiting` (for a person:
 * a permission prompt or a plan), `idle` (its turn is over, waiting for the next prompt),
 * `ended` (the session closed).
 */
export const SESSION_STATES = ["working", "waiting", "idle", "ended"] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/**
 * `session.activity`: an agent session entered `state` at `ts` (epoch ms), sent by the agent hooks
 * (clients/agent-hooks, clients/opencode) at session start, prompt, stop, notifications and plan
 * waits. The latest `ts` wins (a late, spooled frame does not roll the state back); the optional
 * facts (title, cwd, project, gitBranch, model) are kept when a later frame leaves them out.
 */
export const sessionActivityFrame = z.strictObject({
  ...base,
  type: z.literal("session.activity"),
  session: clientKey,
  source: z.enum(SESSION_SOURCES),
  state: z.enum(SESSION_STATES),
  ts: epochMs,
  /** What the session waits for or why it changed, one line (e.g. "plan: Benchmark sweep", a permission prompt's text). */
  detail: z.string().max(2000).optional(),
  title: z.string().max(500).optional(),
  host: hostName.optional(),
  /** Working directory of the agent (absolute path). */
  cwd: z.string().max(4000).optional(),
  /** Project name (default: the last segment of cwd). */
  project: z.string().max(500).optional(),
  gitBranch: z.string().max(500).optional(),
  model: z.string().max(200).optional(),
  /**
   * The tool that just ran (Claude Code's PostToolUse `tool_name`, opencode's tool id), sent while
   * the session has a plan waiting for a decision: a tool that edits files or runs commands then
   * flags the plan "worked without approval" (lib/plans/work-tools.ts).
   */
  tool: z.string().min(1).max(200).optional(),
});
export type SessionActivityFrame = z.infer<typeof sessionActivityFrame>;

export const PLAN_PRIORITIES = ["high", "medium", "low"] as const;

/** One proposed next step. */
export const planItem = z.strictObject({
  content: z.string().min(1).max(20_000),
  priority: z.enum(PLAN_PRIORITIES).optional(),
});

/**
 * `plan.propose`: an agent (or a person) proposes next steps and waits for a decision, which
 * arrives as `plan.decision` on the proposer's socket (or by long-polling
 * `GET /api/plans/:plan/decision?wait=60`). Re-proposing the same `plan` key while it is still
 * undecided updates it; a decided plan is immutable.
 */
export const planProposeFrame = z.strictObject({
  ...base,
  type: z.literal("plan.propose"),
  plan: clientKey,
  session: clientKey.optional(),
  run: clientKey.optional(),
  title: z.string().min(1).max(500),
  rationale: z.string().max(50_000).optional(),
  items: z.array(planItem).min(1).max(200),
  /**
   * The plan as the agent wrote it (markdown, e.g. Claude Code's ExitPlanMode `plan`); `items` are
   * its steps. Shown on the plan page.
   */
  body: z.string().max(200_000).optional(),
  /** Key of the plan this one revises (after a person requested changes); that plan stays as decided. */
  supersedes: clientKey.optional(),
  /** Seconds until the plan expires undecided (default 24 h). */
  expiresInS: z
    .number()
    .int()
    .min(10)
    .max(30 * 86_400)
    .optional(),
});

export const PLAN_DECISIONS = ["approved", "changes_requested", "rejected", "expired"] as const;

/** Server → worker: the decision on a plan this worker proposed (possibly with edited items). */
export const planDecisionFrame = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  type: z.literal("plan.decision"),
  plan: z.string(),
  decision: z.enum(PLAN_DECISIONS),
  items: z.array(planItem),
  comment: z.string().nullable(),
  decidedBy: z.string().nullable(),
  /** Epoch ms. */
  decidedAt: z.number(),
});
export type PlanDecisionFrame = z.infer<typeof planDecisionFrame>;

export type TodoItem = z.infer<typeof todoItem>;
export type SessionTodosFrame = z.infer<typeof sessionTodosFrame>;
export type PlanItem = z.infer<typeof planItem>;
export type PlanProposeFrame = z.infer<typeof planProposeFrame>;
