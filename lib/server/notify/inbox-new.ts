import type pg from "pg";

import type { Logger } from "@/lib/server/logger";
import { claimNewInboxItems, pushEntries, type AnnouncedEntry } from "@/lib/server/push/announce";

import { inboxItemLink } from "./inbox-escalation";
import { escapeMrkdwn } from "./plan-message";
import { postWebhook } from "./webhook";

/**
 * A new inbox item announced once (InboxItem.announcedAt, claimed by the creating route right
 * after it answers the hook, else by the notifier loop): posted to the webhook with its kind and
 * link, and pushed to the subscribed approvers. The post names the agent, host, kind, tool,
 * project and branch — never the command or diff, which only signed-in people see.
 */

const AGENT_NAMES: Record<string, string> = { "claude-code": "Claude Code", opencode: "opencode" };

/** The webhook post of a new item: Slack mrkdwn text, the item's kind and its absolute link. */
export interface NewItemPost {
  text: string;
  itemKind: string;
  link: string;
}

/** ":bell: *Claude Code* on *gpu-01* waits for a decision: permission Bash in project pitwall (branch main) · <…/inbox?item=12|open the item>". */
export function newItemPost(e: AnnouncedEntry, publicUrl: string): NewItemPost {
  const agent = AGENT_NAMES[e.agent] ?? e.agent;
  const what = `${e.kind}${e.toolName ? ` ${e.toolName}` : ""}`;
  const where = `${e.project ? ` in project ${e.project}` : ""}${e.gitBranch ? ` (branch ${e.gitBranch})` : ""}`;
  const waitsFor = e.kind === "notice" ? "waits for input in its terminal" : "waits for a decision";
  const link = inboxItemLink(publicUrl, e.id);
  return {
    text: `:bell: *${escapeMrkdwn(agent)}* on *${escapeMrkdwn(e.host)}* ${waitsFor}: ${escapeMrkdwn(what)}${escapeMrkdwn(where)} · <${link}|open the item>`,
    itemKind: e.kind,
    link,
  };
}

/**
 * Claims the new inbox items (claimNewInboxItems), posts each to `webhookUrl` (when set) and then
 * pushes them to the subscribed approvers. At most once, like every webhook post: a failed post or
 * push is logged, not retried. Never throws.
 */
export async function announceNewInboxItems(
  pool: pg.Pool,
  opts: { log: Logger; publicUrl: string; webhookUrl?: string; at?: Date },
): Promise<void> {
  const at = opts.at ?? new Date();
  let entries: AnnouncedEntry[];
  try {
    entries = await claimNewInboxItems(pool, at);
  } catch (err) {
    opts.log.warn({ err }, "claiming new inbox items failed");
    return;
  }
  if (!entries.length) return;
  if (opts.webhookUrl)
    for (const e of entries) {
      const post = newItemPost(e, opts.publicUrl);
      await postWebhook(opts.webhookUrl, {
        text: post.text,
        kind: post.itemKind,
        link: post.link,
      }).catch((err: unknown) =>
        opts.log.warn({ err, item: e.id }, "notification webhook failed; not retried"),
      );
    }
  await pushEntries(pool, entries, { log: opts.log, publicUrl: opts.publicUrl, at }).catch(
    (err: unknown) => opts.log.warn({ err }, "web push of a new inbox item failed"),
  );
}
