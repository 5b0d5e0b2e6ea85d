"use client";

import Link from "next/link";

import { waitedLabel } from "@/components/inbox/waited";
import { PlanMarkdown } from "@/components/plans/plan-markdown";
import { cn } from "@/lib/utils";
import type { InboxEntry } from "@/lib/view-models/inbox";

import { InboxPlanDiff } from "./inbox-plan-diff";

/**
 * What an inbox item asks, as a person reads it before deciding: kind or tool, agent, host,
 * project, branch, session and how long it waits (`waitedMs`); the command (as code) or the
 * plan's title or question; the todo item in progress; an edit's diff; a plan's markdown, its
 * changes since the version it revises, and a link to its page.
 */
export function InboxItemDetail({ item, waitedMs }: { item: InboxEntry; waitedMs: number }) {
  return (
    <>
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1 text-xs text-muted-fg">
        <span className="rounded bg-muted px-1.5 py-0.5 font-medium text-foreground">
          {item.kind === "permission" ? (item.toolName ?? "permission") : item.kind}
        </span>
        <span>{item.agent}</span>
        <span>host {item.host}</span>
        {item.project && <span>project {item.project}</span>}
        {item.gitBranch && <span>branch {item.gitBranch}</span>}
        {item.session && (
          <Link
            className="text-link underline-offset-4 hover:underline"
            href={`/sessions/${item.session.id}`}
          >
            session {item.session.title ?? item.session.key}
          </Link>
        )}
        <span className="ml-auto tabular-nums" data-testid="inbox-waited">
          waiting {waitedLabel(waitedMs)}
        </span>
      </div>
      {/* A command reads as code; a plan's title or a question as text. */}
      <p
        className={cn(
          "mt-2 text-sm",
          item.kind === "permission" ? "font-mono break-all" : "font-medium break-words",
        )}
      >
        {item.summary}
      </p>
      {item.todoInProgress && (
        <p className="mt-1 text-xs text-muted-fg">doing: {item.todoInProgress}</p>
      )}
      {item.diff && (
        <pre
          tabIndex={0}
          aria-label="Edit diff"
          className="mt-2 max-h-64 overflow-auto rounded bg-muted p-2 text-xs break-all whitespace-pre-wrap"
        >
          {item.diff}
        </pre>
      )}
      {item.kind === "permission" &&
        typeof item.input?.command === "string" &&
        item.input.command !== item.summary && (
          <pre
            tabIndex={0}
            aria-label="Command"
            className="mt-2 max-h-64 overflow-auto rounded bg-muted p-2 text-xs break-all whitespace-pre-wrap"
          >
            {item.input.command}
          </pre>
        )}
      {item.body && (
        <div
          tabIndex={0}
          role="region"
          aria-label="Plan"
          className="mt-2 max-h-64 overflow-auto rounded border border-border bg-muted/40 px-3 py-2"
        >
          <PlanMarkdown markdown={item.body} />
        </div>
      )}
      {item.planId !== null && item.supersedes !== null && <InboxPlanDiff planId={item.planId} />}
      {item.href && (
        <Link
          className="mt-2 inline-flex min-h-11 items-center text-sm text-link underline-offset-4 hover:underline"
          href={item.href}
        >
          Open the plan page
        </Link>
      )}
    </>
  );
}
