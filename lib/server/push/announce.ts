import type pg from "pg";

import type { PushAction, PushPayload } from "@/lib/api/push";
import type { Logger } from "@/lib/server/logger";
import type { WaitingPlanRow } from "@/lib/server/notify/plan-message";
import { deciderSubscriptions, recordPushOutcome } from "@/lib/server/repositories/push";

import { MAX_TOKEN_LIFETIME_S, signActionToken } from "./action-token";
import { actionTokenSecret, vapidKeys, vapidSubject } from "./keys";
import { sendPush } from "./send";

/**
 * Announces new inbox entries by Web Push to every enabled approver's and admin's subscribed
 * browsers (docs/notifications.md). Each item is claimed once (InboxItem.announcedAt, one
 * `UPDATE … RETURNING`), so with several app instances, and with both the creating route and
 * the notifier loop trying, exactly one sends it. Delivery is at most once, like the webhook:
 * a push service that fails is logged, and a subscription it calls gone (404/410) is removed.
 */

const AGENT_NAMES: Record<string, string> = { "claude-code": "Claude Code", opencode: "opencode" };

/**
 * Longest summary in a push, characters: push services take at most 4096 bytes of payload, and
 * the two action tokens and the rest take about 1 KB (a summary may be 2000 characters).
 */
export const MAX_PUSH_SUMMARY_CHARS = 300;

/** Items created longer ago than this are not announced (e.g. the backlog on a first deploy). */
const RECENT = "15 minutes";

/** What a push says about one inbox entry. */
export interface AnnouncedEntry {
  /** Inbox id: "12" or "plan-7". */
  id: string;
  kind: string;
  agent: string;
  host: string;
  toolName: string | null;
  summary: string;
  project: string | null;
  gitBranch: string | null;
  expiresAt: Date;
}

/** Options of {@link pushEntries}. */
export interface AnnounceOptions {
  log: Logger;
  /** PITWALL_PUBLIC_URL (for the VAPID subject). */
  publicUrl?: string;
  at?: Date;
  /** A reminder of an item pushed before (escalation): this line opens the body and the device alerts again. */
  reminder?: string;
}

/** Counts of one announcement round. */
export interface AnnounceResult {
  entries: number;
  sent: number;
  gone: number;
  failed: number;
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** The notification of `e` for one person: its text, link, and Approve / Deny tokens signed for `userId`. */
export function pushPayloadFor(
  e: AnnouncedEntry,
  userId: string,
  secret: string,
  at: Date,
  reminder?: string,
): PushPayload {
  const agent = AGENT_NAMES[e.agent] ?? e.agent;
  const summary = clip(e.summary, MAX_PUSH_SUMMARY_CHARS);
  const what =
    e.kind === "permission" ? `permission ${clip(e.toolName ?? "", 100)}`.trim() : e.kind;
  const where = [
    e.project && `project ${clip(e.project, 100)}`,
    e.gitBranch && `branch ${clip(e.gitBranch, 100)}`,
  ]
    .filter(Boolean)
    .join(" · ");
  const decidable = e.kind === "permission" || e.kind === "plan";
  const action = (a: "allow" | "deny", title: string): PushAction => ({
    action: a,
    title,
    token: signActionToken(secret, { item: e.id, action: a, userId, expiresAt: e.expiresAt }, at)
      .token,
  });
  return {
    v: 1,
    id: e.id,
    kind: e.kind,
    agent,
    host: e.host,
    summary,
    title: `${agent} on ${e.host}: ${what}`,
    body: [reminder, summary, where].filter(Boolean).join("\n"),
    url: e.id.startsWith("plan-") ? `/plans/${e.id.slice(5)}` : `/inbox?item=${e.id}`,
    tag: `inbox-${e.id}`,
    renotify: reminder !== undefined,
    actions: decidable
      ? [action("allow", "Approve"), action("deny", e.kind === "plan" ? "Reject" : "Deny")]
      : [],
  };
}

/** Pushes `entries` to every decider's subscribed browsers. Never throws for a push service's failure. */
export async function pushEntries(
  pool: pg.Pool,
  entries: AnnouncedEntry[],
  opts: AnnounceOptions,
): Promise<AnnounceResult> {
  const result: AnnounceResult = { entries: entries.length, sent: 0, gone: 0, failed: 0 };
  if (!entries.length) return result;
  const targets = await deciderSubscriptions(pool);
  if (!targets.length) return result;
  const at = opts.at ?? new Date();
  const [vapid, secret] = await Promise.all([vapidKeys(pool), actionTokenSecret(pool)]);
  const subject = vapidSubject(opts.publicUrl);
  for (const e of entries) {
    await Promise.all(
      targets.map(async (t) => {
        const out = await sendPush(t, pushPayloadFor(e, t.userId, secret, at, opts.reminder), {
          vapid,
          subject,
        });
        if (out.outcome === "failed") {
          result.failed++;
          opts.log.warn(
            { subscription: t.id, item: e.id, status: out.status, message: out.message },
            "web push failed; not retried",
          );
          return;
        }
        result[out.outcome]++;
        await recordPushOutcome(pool, t.id, out.outcome, at);
        if (out.outcome === "gone")
          opts.log.info(
            { subscription: t.id, status: out.status },
            "push subscription gone; removed",
          );
      }),
    );
  }
  return result;
}

/**
 * Claims the inbox items not yet announced (waiting, not expired, created within 15 min of `at`),
 * oldest first. Each item is claimed by exactly one caller (one `UPDATE … RETURNING`).
 */
export async function claimNewInboxItems(pool: pg.Pool, at: Date): Promise<AnnouncedEntry[]> {
  const res = await pool.query<Omit<AnnouncedEntry, "id"> & { id: number }>(
    `UPDATE "InboxItem" i SET "announcedAt" = $1 FROM "Host" h
     WHERE h.id = i."hostId" AND i.status = 'waiting' AND i."announcedAt" IS NULL AND i."expiresAt" > $1
       AND i."createdAt" > $1::timestamptz - interval '${RECENT}'
     RETURNING i.id, i.kind::text AS kind, i.agent, h.name AS host, i."toolName", i.summary, i.project, i."gitBranch", i."expiresAt"`,
    [at],
  );
  return res.rows.sort((a, b) => a.id - b.id).map((r) => ({ ...r, id: String(r.id) }));
}

/** A plan the notifier just claimed (PLAN_MESSAGE_SQL), as a pushed entry; its tokens last the full hour. */
export function planEntry(p: WaitingPlanRow, at: Date): AnnouncedEntry {
  return {
    id: `plan-${p.id}`,
    kind: "plan",
    agent: p.sessionSource ?? "worker",
    host: p.host,
    toolName: null,
    summary: p.title,
    project: p.project,
    gitBranch: p.gitBranch,
    expiresAt: new Date(at.getTime() + MAX_TOKEN_LIFETIME_S * 1000),
  };
}
