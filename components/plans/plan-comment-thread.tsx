"use client";

import { CheckCircle2, History } from "lucide-react";
import { useId, useState } from "react";

import { RelativeTime } from "@/components/runs/relative-time";
import { Button } from "@/components/ui/button";
import type { PlanCommentView } from "@/lib/view-models/plan-comments";

/**
 * The comments on one line (or the outdated ones), oldest first: author, time, text, where a
 * carried-over comment was written, and its resolved/outdated marks; approvers get
 * Resolve/Reopen (`onResolve`).
 */
export function PlanCommentThread({
  comments,
  version,
  onResolve,
  busy,
}: {
  comments: readonly PlanCommentView[];
  /** This plan's version number (to say which comments came from earlier versions). */
  version: number;
  onResolve?: (c: PlanCommentView, resolved: boolean) => void;
  busy?: boolean;
}) {
  return (
    <ul className="grid gap-1.5">
      {comments.map((c) => (
        <li
          key={c.id}
          data-comment-state={c.outdated ? "outdated" : c.resolved ? "resolved" : "open"}
          className={`grid gap-1 rounded-md border border-border bg-card px-3 py-2 font-sans text-[13px] ${c.resolved ? "opacity-70" : ""}`}
        >
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-fg">
            <span className="font-medium text-foreground">{c.author}</span>
            <RelativeTime iso={c.createdAt} />
            {c.writtenOn.version !== version && (
              <span>
                from v{c.writtenOn.version}, line {c.writtenOn.line}
              </span>
            )}
            {c.outdated && (
              <span className="inline-flex items-center gap-1 rounded bg-stale-bg px-1.5 text-stale">
                <History aria-hidden className="size-3" /> outdated
              </span>
            )}
            {c.resolved && (
              <span
                className="inline-flex items-center gap-1 rounded bg-succeeded-bg px-1.5 text-succeeded"
                title={c.resolvedBy ? `resolved by ${c.resolvedBy}` : undefined}
              >
                <CheckCircle2 aria-hidden className="size-3" /> resolved
              </span>
            )}
            {onResolve && (
              <Button
                size="sm"
                variant="ghost"
                className="ml-auto"
                disabled={busy}
                onClick={() => onResolve(c, !c.resolved)}
              >
                {c.resolved ? "Reopen" : "Resolve"}
              </Button>
            )}
          </div>
          {c.outdated && (
            <blockquote className="border-l-2 border-border pl-2 font-mono text-xs break-all whitespace-pre-wrap text-muted-fg">
              {c.lineText}
            </blockquote>
          )}
          <p className="break-words whitespace-pre-wrap">{c.body}</p>
        </li>
      ))}
    </ul>
  );
}

/** The form under a line: the comment's text, Add and Cancel. */
export function PlanCommentForm({
  line,
  onSubmit,
  onCancel,
  busy,
  error,
}: {
  line: number;
  onSubmit: (text: string) => void;
  onCancel: () => void;
  busy: boolean;
  error: string | null;
}) {
  const [text, setText] = useState("");
  const id = useId();
  return (
    <form
      className="grid gap-1.5 font-sans"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(text);
      }}
    >
      <label htmlFor={id} className="text-xs font-medium">
        Comment on line {line}
      </label>
      <textarea
        id={id}
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        rows={2}
        maxLength={5_000}
        disabled={busy}
        autoFocus
        aria-invalid={error ? true : undefined}
        className="min-h-12 resize-y rounded-md border border-input bg-card px-2 py-1 text-[13px] leading-5 shadow-xs focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring aria-invalid:border-failed"
      />
      {error && (
        <p role="alert" className="text-xs text-failed">
          {error}
        </p>
      )}
      <div className="flex gap-1.5">
        <Button size="sm" type="submit" disabled={busy || text.trim() === ""}>
          Add comment
        </Button>
        <Button size="sm" variant="ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
