/**
 * The webhook text of a plan waiting for a decision (Slack mrkdwn): which agent waits, on which
 * host, in which session and project, for whom (a person with the approver role), and a link to
 * decide. Built by the notifier from one row of {@link PLAN_MESSAGE_SQL}.
 */

/** Display names of the agents a session's `source` names (`pushed`: a worker of our own SDK/CLI). */
const AGENT_NAMES: Record<string, string> = { "claude-code": "Claude Code", opencode: "opencode" };

/** What the message says about one waiting plan (a row of PLAN_MESSAGE_SQL's RETURNING). */
export interface WaitingPlanRow {
  id: number;
  title: string;
  host: string;
  items: unknown[];
  /** Key of the plan this one revises, or null for a first version. */
  supersedes: string | null;
  sessionId: number | null;
  sessionSource: string | null;
  sessionTitle: string | null;
  sessionKey: string | null;
  project: string | null;
  gitBranch: string | null;
}

/**
 * Claims the plans to announce (proposed, not yet announced, proposed after `$1 - RECENT`) and
 * returns them with their host and session: parameter `$1` is the notifier's clock, `$2` the
 * "recent" interval (e.g. '15 minutes').
 */
export const PLAN_MESSAGE_SQL = `
  WITH claimed AS (
    UPDATE "Plan" p SET "notifiedAt" = $1
    WHERE p.status = 'proposed' AND p."notifiedAt" IS NULL AND p."proposedAt" > $1::timestamptz - $2::interval
    RETURNING p.id, p.title, p."hostId", p.items, p.supersedes, p."sessionId"
  )
  SELECT c.id, c.title, h.name AS host, c.items, c.supersedes, c."sessionId",
    s.source AS "sessionSource", s.title AS "sessionTitle", s.key AS "sessionKey", s.project, s."gitBranch"
  FROM claimed c JOIN "Host" h ON h.id = c."hostId" LEFT JOIN "AgentSession" s ON s.id = c."sessionId"
  ORDER BY c.id`;

/** Escapes the three characters Slack mrkdwn treats as markup. */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The message, e.g. ":raised_hand: *Claude Code* on *gpu-01* waits for an approver: plan
 * <…/plans/7|Benchmark sweep> (3 steps, revises an earlier version) · session <…/sessions/4|Sweep>
 * in project pitwall (branch bench-sweep)". A plan without a session reads "A worker on *host*".
 * `publicUrl` is the base of the links.
 */
export function waitingPlanText(p: WaitingPlanRow, publicUrl: string): string {
  const link = (path: string, label: string) =>
    `<${new URL(path, publicUrl).toString()}|${escapeMrkdwn(label)}>`;
  const who =
    p.sessionId === null ? "A worker" : `*${AGENT_NAMES[p.sessionSource ?? ""] ?? "An agent"}*`;
  const steps = `${p.items.length} step${p.items.length === 1 ? "" : "s"}${p.supersedes ? ", revises an earlier version" : ""}`;
  let text = `:raised_hand: ${who} on *${escapeMrkdwn(p.host)}* waits for an approver: plan ${link(`/plans/${p.id}`, p.title)} (${steps})`;
  if (p.sessionId !== null) {
    text += ` · session ${link(`/sessions/${p.sessionId}`, p.sessionTitle ?? p.sessionKey ?? String(p.sessionId))}`;
    if (p.project) text += ` in project ${escapeMrkdwn(p.project)}`;
    if (p.gitBranch) text += ` (branch ${escapeMrkdwn(p.gitBranch)})`;
  }
  return text;
}
