import type pg from "pg";

import { evaluateAlertRules } from "@/lib/server/alerts/evaluate-rules";
import { DEFAULT_INBOX_POLICY, type InboxPolicy } from "@/lib/server/inbox-policy";
import { publishTopics } from "@/lib/server/live/publish";
import type { Logger } from "@/lib/server/logger";
import {
  claimNewInboxItems,
  planEntry,
  pushEntries,
  type AnnouncedEntry,
} from "@/lib/server/push/announce";
import { expireInboxItems } from "@/lib/server/repositories/inbox-list";
import { expirePlans } from "@/lib/server/repositories/plan-decisions";

import { escalateInboxItems, type EscalationPost } from "./inbox-escalation";
import { newItemPost } from "./inbox-new";
import {
  escapeMrkdwn,
  PLAN_MESSAGE_SQL,
  waitingPlanText,
  type WaitingPlanRow,
} from "./plan-message";
import { postWebhook } from "./webhook";

/**
 * Watches for run state transitions that no frame announces — a run going **stale** because
 * its worker fell silent, or coming back — and for alerts worth a human's attention (a run that
 * **failed**, invariant alerts such as "deleted locally but never uploaded"). For each, it:
 *   1. tells open browsers (pg_notify on the run's topics), so "stale" shows up live, and
 *   2. posts once per transition to the notification webhook (Slack-compatible JSON), if set.
 *
 * "Once" holds across several app instances: every transition is claimed with a single
 * `UPDATE ... RETURNING` (Run.notifiedState, RunEvent.notifiedAt), so exactly one instance sees
 * it. Delivery to the webhook is at most once: a failed POST is logged, not retried, so a
 * flapping webhook never floods the channel.
 */

/**
 * A message for the webhook; `text` is Slack mrkdwn. `runId` is 0 for plan and inbox messages
 * (`inbox_new`: a new item the creating route did not announce; `inbox`: an escalation),
 * which also carry the entry's `itemKind` (permission, question, notice, plan) and absolute
 * `link`; the post's JSON adds both next to `text` (Slack ignores them).
 */
export interface Notification {
  kind:
    "stale" | "resumed" | "failed" | "alert" | "alert_resolved" | "plan" | "inbox" | "inbox_new";
  runId: number;
  text: string;
  itemKind?: string;
  link?: string;
}

/** Where notifications go (an HTTP POST of `{text}`), injectable for tests. */
export type Deliver = (n: Notification) => Promise<void>;

/** Options of {@link startNotifier}. */
export interface NotifierOptions {
  pool: pg.Pool;
  log: Logger;
  /** Slack-compatible incoming-webhook URL; undefined = browser updates only. */
  webhookUrl?: string;
  /** Base URL for links in messages, e.g. https://pitwall.example.com. */
  publicUrl: string;
  /** Poll period (ms), default 5000. */
  intervalMs?: number;
  /** Clock, injectable. */
  now?: () => Date;
  /** Delivery, injectable; default POSTs JSON to webhookUrl with a 5 s timeout. */
  deliver?: Deliver;
  /** Inbox timeouts and escalation (lib/server/inbox-policy.ts); default: none. */
  inboxPolicy?: InboxPolicy;
}

/** A running notifier: `tick()` runs one check now (tests), `stop()` ends the loop. */
export interface Notifier {
  tick(): Promise<Notification[]>;
  stop(): void;
}

/**
 * Only fresh transitions are announced: a failure or alert older than RECENT (e.g. a historical
 * file imported today, or the backlog on a first deploy) and runs silent for longer than
 * QUIET_AFTER (abandoned long ago) are not posted.
 */
const RECENT = "15 minutes";
const QUIET_AFTER = "24 hours";

interface RunRow {
  id: number;
  name: string;
  host: string;
  stallAfterS: number;
  lastPushAt: Date;
  error: string | null;
}

/** Starts the periodic check. Errors inside a tick are logged; the loop keeps going. */
export function startNotifier(opts: NotifierOptions): Notifier {
  const now = opts.now ?? (() => new Date());
  const deliver =
    opts.deliver ?? (opts.webhookUrl ? webhookDelivery(opts.webhookUrl) : async () => undefined);
  const link = (r: { id: number; name: string }) =>
    `<${new URL(`/runs/${r.id}`, opts.publicUrl).toString()}|${escapeMrkdwn(r.name)}>`;
  const ago = (d: Date) => `${Math.round((now().getTime() - d.getTime()) / 1000)} s`;

  const tick = async (): Promise<Notification[]> => {
    const at = now();
    const out: Notification[] = [];
    const stale = await opts.pool.query<RunRow>(
      `UPDATE "Run" r SET "notifiedState" = 'stale' FROM "Host" h
       WHERE h.id = r."hostId" AND r.status = 'running' AND r."archivedAt" IS NULL AND r."lastPushAt" < $1::timestamptz - make_interval(secs => r."stallAfterS")
         AND r."lastPushAt" > $1::timestamptz - interval '${QUIET_AFTER}'
         AND r."notifiedState" IS DISTINCT FROM 'stale'
       RETURNING r.id, r.name, h.name AS host, r."stallAfterS", r."lastPushAt", r.error`,
      [at],
    );
    for (const r of stale.rows)
      out.push({
        kind: "stale",
        runId: r.id,
        text: `:warning: Run ${link(r)} on ${r.host} is *stale*: no push for ${ago(r.lastPushAt)} (threshold ${r.stallAfterS} s).`,
      });

    const resumed = await opts.pool.query<RunRow>(
      `UPDATE "Run" r SET "notifiedState" = NULL FROM "Host" h
       WHERE h.id = r."hostId" AND r.status = 'running' AND r."lastPushAt" >= $1::timestamptz - make_interval(secs => r."stallAfterS")
         AND r."notifiedState" = 'stale'
       RETURNING r.id, r.name, h.name AS host, r."stallAfterS", r."lastPushAt", r.error`,
      [at],
    );
    for (const r of resumed.rows)
      out.push({
        kind: "resumed",
        runId: r.id,
        text: `:white_check_mark: Run ${link(r)} on ${r.host} is pushing again.`,
      });

    const failed = await opts.pool.query<RunRow>(
      `UPDATE "Run" r SET "notifiedState" = 'failed' FROM "Host" h
       WHERE h.id = r."hostId" AND r.status = 'failed' AND r."archivedAt" IS NULL AND r."notifiedState" IS DISTINCT FROM 'failed'
         AND r."lastPushAt" > $1::timestamptz - interval '${RECENT}'
       RETURNING r.id, r.name, h.name AS host, r."stallAfterS", r."lastPushAt", r.error`,
      [at],
    );
    for (const r of failed.rows) {
      const why = r.error ? `: ${truncate(r.error, 300)}` : "";
      out.push({
        kind: "failed",
        runId: r.id,
        text: `:x: Run ${link(r)} on ${r.host} *failed*${why}`,
      });
    }

    const alerts = await opts.pool.query<{
      id: string;
      runId: number;
      name: string;
      host: string;
      message: string;
      code: string;
    }>(
      `UPDATE "RunEvent" e SET "notifiedAt" = $1 FROM "Run" r JOIN "Host" h ON h.id = r."hostId"
       WHERE r.id = e."runId" AND e.code IS NOT NULL AND e.level IN ('warn', 'error') AND e."notifiedAt" IS NULL
         AND e.ts > $1::timestamptz - interval '${RECENT}'
       RETURNING e.id, e."runId", r.name, h.name AS host, e.message, e.code`,
      [at],
    );
    for (const a of alerts.rows) {
      out.push({
        kind: "alert",
        runId: a.runId,
        text: `:rotating_light: Run ${link({ id: a.runId, name: a.name })} on ${a.host}: ${escapeMrkdwn(a.message)} (\`${a.code}\`)`,
      });
    }

    // Alert rules on metrics (lib/server/alerts/): fired once, and again when resolved.
    for (const t of await evaluateAlertRules(opts.pool, at)) {
      const where = `Run ${link({ id: t.runId, name: t.runName })} on ${t.host}`;
      out.push(
        t.kind === "fired"
          ? {
              kind: "alert",
              runId: t.runId,
              text: `:rotating_light: ${where}: alert *${escapeMrkdwn(t.ruleName)}*: ${escapeMrkdwn(t.detail)}`,
            }
          : {
              kind: "alert_resolved",
              runId: t.runId,
              text: `:white_check_mark: ${where}: alert *${escapeMrkdwn(t.ruleName)}* resolved (${escapeMrkdwn(t.detail)})`,
            },
      );
    }

    const plans = await opts.pool.query<WaitingPlanRow>(PLAN_MESSAGE_SQL, [at, RECENT]);
    for (const p of plans.rows)
      out.push({
        kind: "plan",
        runId: 0,
        text: waitingPlanText(p, opts.publicUrl),
        itemKind: "plan",
        link: new URL(`/plans/${p.id}`, opts.publicUrl).toString(),
      });
    await expirePlans(opts.pool, at);
    // New inbox items the creating route did not announce (e.g. it crashed first): post and push.
    const fresh = await claimNewInboxItems(opts.pool, at);
    for (const e of fresh) {
      const { text, itemKind, link } = newItemPost(e, opts.publicUrl);
      out.push({ kind: "inbox_new", runId: 0, text, itemKind, link });
    }
    // Inbox items: expire (hand back or deny, per kind) and re-notify those waiting too long.
    const inboxPolicy = opts.inboxPolicy ?? DEFAULT_INBOX_POLICY;
    await expireInboxItems(opts.pool, at, inboxPolicy);
    const escalated = await escalateInboxItems(opts.pool, at, inboxPolicy, opts.publicUrl);
    for (const { text, itemKind, link } of escalated)
      out.push({ kind: "inbox", runId: 0, text, itemKind, link });

    // Browsers learn about transitions no frame announced (stale / resumed).
    const topics = new Set<string>();
    for (const n of out)
      if (n.kind !== "plan" && n.kind !== "inbox" && n.kind !== "inbox_new")
        topics.add(`run:${n.runId}`).add("runs");
    if (alerts.rowCount || out.some((n) => n.kind === "alert" || n.kind === "alert_resolved"))
      topics.add("events");
    await publishTopics(opts.pool, topics);

    for (const n of out) {
      try {
        await deliver(n);
      } catch (err) {
        opts.log.warn(
          { err, runId: n.runId, kind: n.kind },
          "notification webhook failed; not retried",
        );
      }
    }
    // Web Push to subscribed approvers: new items (unless the creating route already claimed
    // them), the plans claimed above, and a reminder for each escalated item. Last, so a slow
    // push service (10 s timeout) never delays the browsers' updates or the webhook.
    await pushWaiting(
      opts,
      at,
      fresh,
      plans.rows,
      escalated.map((e) => e.item),
    );
    return out;
  };

  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = tick()
      .catch((err: unknown) => opts.log.error({ err }, "notifier tick failed"))
      .finally(() => (running = null));
  }, opts.intervalMs ?? 5000);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}

/**
 * Pushes new inbox items and newly claimed plans to subscribed browsers; a failure (e.g. no VAPID
 * key readable) is logged and never stops the webhook posts of this tick.
 */
async function pushWaiting(
  opts: NotifierOptions,
  at: Date,
  fresh: AnnouncedEntry[],
  plans: WaitingPlanRow[],
  escalated: EscalationPost["item"][],
): Promise<void> {
  const push = { log: opts.log, publicUrl: opts.publicUrl, at };
  try {
    await pushEntries(opts.pool, fresh, push);
    await pushEntries(
      opts.pool,
      plans.map((p) => planEntry(p, at)),
      push,
    );
    for (const e of escalated)
      await pushEntries(opts.pool, [{ ...e, id: String(e.id) }], {
        ...push,
        reminder: `Still waiting after ${e.waitedMin} min`,
      });
  } catch (err) {
    opts.log.warn({ err }, "web push of new inbox items failed; not retried");
  }
}

/** Delivery to `url` (lib/server/notify/webhook.ts): `{text}`, plus `kind` and `link` for inbox and plan entries. @throws on non-2xx. */
function webhookDelivery(url: string): Deliver {
  return (n) =>
    postWebhook(url, n.link ? { text: n.text, kind: n.itemKind, link: n.link } : { text: n.text });
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
