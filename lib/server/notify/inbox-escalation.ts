import type pg from "pg";

import { POLICY_KINDS, type InboxPolicy } from "@/lib/server/inbox-policy";

import { escapeMrkdwn } from "./plan-message";

/**
 * Escalation of inbox items nobody decided: once an item has waited its kind's
 * `escalateAfterMin`, it is claimed (InboxItem.escalatedAt, one `UPDATE … RETURNING`, so one
 * app instance posts it) and posted to the webhook again. The post names the agent, host, kind,
 * tool, project and branch and links to the item on /inbox (`/inbox?item=12`) — never the
 * command or diff, which only signed-in people see.
 */

const AGENT_NAMES: Record<string, string> = { "claude-code": "Claude Code", opencode: "opencode" };

/** Whole minutes item `r` has waited at `at`. */
function waitedMin(r: { createdAt: Date }, at: Date): number {
  return Math.max(0, Math.round((at.getTime() - r.createdAt.getTime()) / 60_000));
}

/** An escalated item as the claim returns it. */
export interface EscalatedRow {
  id: number;
  kind: string;
  agent: string;
  host: string;
  toolName: string | null;
  project: string | null;
  gitBranch: string | null;
  createdAt: Date;
}

/**
 * One escalation: its webhook post (Slack mrkdwn text, the item's kind and absolute link) and the
 * item as Web Push re-announces it (`item`, with how long it has waited).
 */
export interface EscalationPost {
  text: string;
  itemKind: string;
  link: string;
  item: EscalatedRow & { summary: string; expiresAt: Date; waitedMin: number };
}

/** The absolute link of inbox item `id` on /inbox (the page selects it). */
export function inboxItemLink(publicUrl: string, id: number | string): string {
  return new URL(`/inbox?item=${id}`, publicUrl).toString();
}

/** Claims the items waiting past their escalation time and returns their webhook posts. */
export async function escalateInboxItems(
  pool: pg.Pool,
  at: Date,
  policy: InboxPolicy,
  publicUrl: string,
): Promise<EscalationPost[]> {
  const posts: EscalationPost[] = [];
  for (const kind of POLICY_KINDS) {
    const afterMin = policy.escalateAfterMin[kind];
    if (afterMin === undefined) continue;
    const res = await pool.query<EscalatedRow & { summary: string; expiresAt: Date }>(
      `UPDATE "InboxItem" i SET "escalatedAt" = $1 FROM "Host" h
       WHERE h.id = i."hostId" AND i.kind = $2::"InboxKind" AND i.status = 'waiting' AND i."escalatedAt" IS NULL
         AND i."expiresAt" > $1 AND i."createdAt" <= $1::timestamptz - make_interval(mins => $3)
       RETURNING i.id, i.kind::text AS kind, i.agent, h.name AS host, i."toolName", i.project, i."gitBranch", i."createdAt", i.summary, i."expiresAt"`,
      [at, kind, afterMin],
    );
    for (const r of res.rows)
      posts.push({
        text: escalationText(r, at, publicUrl),
        itemKind: r.kind,
        link: inboxItemLink(publicUrl, r.id),
        item: { ...r, waitedMin: waitedMin(r, at) },
      });
  }
  return posts;
}

/** ":hourglass_flowing_sand: *Claude Code* on *gpu-01* still waits after 12 min: permission Bash in project pitwall (branch main) · <…/inbox?item=12|open the item>". */
export function escalationText(r: EscalatedRow, at: Date, publicUrl: string): string {
  const agent = AGENT_NAMES[r.agent] ?? r.agent;
  const what = `${r.kind}${r.toolName ? ` ${r.toolName}` : ""}`;
  const where = `${r.project ? ` in project ${r.project}` : ""}${r.gitBranch ? ` (branch ${r.gitBranch})` : ""}`;
  const link = `<${inboxItemLink(publicUrl, r.id)}|open the item>`;
  return `:hourglass_flowing_sand: *${escapeMrkdwn(agent)}* on *${escapeMrkdwn(r.host)}* still waits for a decision after ${waitedMin(r, at)} min: ${escapeMrkdwn(what)}${escapeMrkdwn(where)} · ${link}`;
}
