"use client";

import Link from "next/link";

import { RelativeTime } from "@/components/runs/relative-time";
import type { InboxAuditEntry } from "@/lib/view-models/inbox";

const DECISION_STYLE: Record<string, string> = {
  allow: "bg-succeeded-bg text-succeeded",
  approved: "bg-succeeded-bg text-succeeded",
  deny: "bg-failed-bg text-failed",
  rejected: "bg-failed-bg text-failed",
  worked_without_approval: "bg-failed-bg text-failed",
};

/** The inbox audit as a list, newest first: decision, who or which rule, item, agent, host, session, message, when. */
export function InboxAuditList({
  entries,
  showSession = true,
}: {
  entries: InboxAuditEntry[];
  showSession?: boolean;
}) {
  if (entries.length === 0) return <p className="text-sm text-muted-fg">No decisions yet.</p>;
  return (
    <ol className="grid gap-2" aria-label="Decisions">
      {entries.map((e) => (
        <li
          key={e.id}
          data-testid="inbox-audit-entry"
          className="min-w-0 rounded-md border border-border bg-card px-3 py-2 text-sm"
        >
          <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
            <span
              className={`rounded px-1.5 py-0.5 text-xs font-medium ${DECISION_STYLE[e.decision] ?? "bg-muted text-foreground"}`}
            >
              {e.decision.replace(/_/g, " ")}
            </span>
            <span className="font-medium break-words">{e.byRule ? "rule" : e.decidedBy}</span>
            {e.rule && <span className="font-mono text-xs break-all text-muted-fg">{e.rule}</span>}
            <RelativeTime
              iso={e.decidedAt}
              className="ml-auto text-xs text-muted-fg tabular-nums"
            />
          </div>
          <p className="mt-1 font-mono text-xs break-all">
            {e.kind === "plan" ? "plan" : (e.toolName ?? e.kind)} · {e.summary}
          </p>
          <div className="mt-1 flex flex-wrap gap-x-3 text-xs text-muted-fg">
            <span>{e.agent}</span>
            <span>host {e.host}</span>
            {e.project && <span>project {e.project}</span>}
            {showSession && e.session && (
              <Link
                className="text-link underline-offset-4 hover:underline"
                href={`/sessions/${e.session.id}`}
              >
                session {e.session.title ?? e.session.key}
              </Link>
            )}
            <span>item {e.itemId}</span>
          </div>
          {e.message && <p className="mt-1 text-xs break-words">“{e.message}”</p>}
        </li>
      ))}
    </ol>
  );
}
