/** Shapes of the inbox API (GET /api/inbox), shared by the server and the /inbox page. */

/** One waiting entry of the inbox as listed (an InboxItem or a waiting Plan). */
export interface InboxEntry {
  /** "12" for an inbox item, "plan-7" for a plan. */
  id: string;
  kind: "permission" | "plan" | "question" | "notice";
  agent: string;
  host: string;
  session: { id: number; key: string; title: string | null } | null;
  project: string | null;
  cwd: string | null;
  gitBranch: string | null;
  toolName: string | null;
  summary: string;
  /** The tool input (Bash command, edit): only for signed-in people, else null. */
  input: Record<string, unknown> | null;
  /** The edit's diff: only for signed-in people, else null. */
  diff: string | null;
  /** A plan's markdown (plans only; only for signed-in people). */
  body: string | null;
  /** The session's todo item in progress (activeForm or content). */
  todoInProgress: string | null;
  /** Plans: the page that decides it in full. */
  href: string | null;
  /** Plans: the plan's id; null for other kinds. */
  planId: number | null;
  /** Plans: key of the version this one revises (its diff is on the plan page); else null. */
  supersedes: string | null;
  createdAt: string;
  waitingMs: number;
}

/** The wall's inbox figure: how many wait and since when the oldest waits (ISO time; null: none). */
export interface InboxSummary {
  count: number;
  oldestAt: string | null;
}

/** GET /api/inbox: the waiting entries, oldest first. */
export interface InboxListView {
  asOf: string;
  count: number;
  items: InboxEntry[];
}

/** An inbox rule as listed (GET /api/inbox/rules). */
export interface InboxRuleView {
  id: number;
  effect: "allow" | "deny";
  /** any | claude-code | opencode */
  agent: string;
  /** null = every project */
  project: string | null;
  tool: string;
  pattern: string;
  /** Deny: the reason the model reads. */
  message: string | null;
  /** `allow Bash(pytest *) in pitwall` */
  label: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  /** How many permissions it decided. */
  appliedCount: number;
  lastAppliedAt: string | null;
}

/** One audit entry (GET /api/inbox/audit): a decision, a rule application or a closing. */
export interface InboxAuditEntry {
  /** `item-<audit id>`, `plan-<decision id>` or `work-<unapproved work id>`. */
  id: string;
  /** The item as the inbox names it: "12" or "plan-7". */
  itemId: string;
  kind: string;
  /** allow | deny | answered_in_terminal | agent_ended | expired; plans: approved | changes_requested | rejected | worked_without_approval. */
  decision: string;
  message: string | null;
  /** The person, `rule #3 (…)` or `pitwall`. */
  decidedBy: string;
  /** True when a rule decided. */
  byRule: boolean;
  /** The rule applied (or written by "always allow"), as it read then. */
  rule: string | null;
  agent: string;
  host: string;
  session: { id: number; key: string; title: string | null } | null;
  project: string | null;
  toolName: string | null;
  summary: string;
  decidedAt: string;
}
