"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MessageSquarePlus } from "lucide-react";
import { useState } from "react";

import { PlanCommentForm, PlanCommentThread } from "@/components/plans/plan-comment-thread";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  fetchPlanComments,
  patchPlanCommentResolved,
  postPlanComment,
} from "@/lib/api/fetchers/plan-comments";
import { planCommentsQueryKey } from "@/lib/api/query-keys";
import { bodyLines } from "@/lib/plans/body-lines";
import type { PlanCommentView } from "@/lib/view-models/plan-comments";

/**
 * The plan's text line by line with the comments anchored to each line (carried over from earlier
 * versions where their line still exists), then the outdated ones. Approvers add a comment on a
 * line and resolve or reopen comments; viewers read.
 */
export function PlanLineComments({
  planId,
  body,
  canComment,
}: {
  planId: number;
  body: string;
  canComment: boolean;
}) {
  const queryClient = useQueryClient();
  const key = planCommentsQueryKey(planId);
  const { data, error } = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => fetchPlanComments(planId, signal),
  });
  const [openLine, setOpenLine] = useState<number | null>(null);
  const add = useMutation({
    mutationFn: (v: { line: number; body: string }) => postPlanComment(planId, v),
    // Close the form of the line just commented only: the live topic may have shown the comment
    // (and the person opened another line's form) before this answer arrived.
    onSuccess: (_comment, v) => {
      setOpenLine((open) => (open === v.line ? null : open));
      return queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const resolve = useMutation({
    mutationFn: (v: { c: PlanCommentView; resolved: boolean }) =>
      patchPlanCommentResolved(planId, v.c.id, v.resolved),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const lines = bodyLines(body);
  const comments = data?.comments ?? [];
  const byLine = new Map<number, PlanCommentView[]>();
  for (const c of comments)
    if (c.line !== null) byLine.set(c.line, [...(byLine.get(c.line) ?? []), c]);
  const outdated = comments.filter((c) => c.line === null);
  const open = comments.filter((c) => !c.resolved && !c.outdated).length;
  const onResolve = canComment
    ? (c: PlanCommentView, resolved: boolean) => resolve.mutate({ c, resolved })
    : undefined;
  const version = data?.version ?? 1;

  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Line comments</CardTitle>
        <CardDescription className="tabular-nums">
          {comments.length === 0
            ? canComment
              ? "comment on a line; comments carry over to the next version"
              : "none yet"
            : `${open} open, ${comments.length} in all`}
        </CardDescription>
      </CardHeader>
      {error && (
        <p role="alert" className="px-4 pt-2 text-sm text-failed">
          Could not load the comments ({error.message}).
        </p>
      )}
      {resolve.error && (
        <p role="alert" className="px-4 pt-2 text-sm text-failed">
          {resolve.error.message}
        </p>
      )}
      <ol
        aria-label="Plan lines"
        className="max-h-[40rem] overflow-y-auto py-1 font-mono text-xs leading-5"
      >
        {lines.map((text, i) => {
          const line = i + 1;
          const here = byLine.get(line) ?? [];
          return (
            <li key={line} data-line={line} className="group grid gap-1 px-2">
              <div className="flex items-start gap-2">
                <span className="w-8 shrink-0 text-right text-muted-fg tabular-nums select-none">
                  {line}
                </span>
                <span className="min-w-0 flex-1 break-all whitespace-pre-wrap">{text || " "}</span>
                {canComment && text.trim() !== "" && (
                  <button
                    type="button"
                    aria-label={`Add a comment on line ${line}`}
                    onClick={() => {
                      add.reset();
                      setOpenLine(line);
                    }}
                    className="shrink-0 rounded p-0.5 text-muted-fg opacity-50 group-hover:opacity-100 hover:text-foreground focus-visible:opacity-100 focus-visible:outline-2 focus-visible:outline-ring"
                  >
                    <MessageSquarePlus aria-hidden className="size-3.5" />
                  </button>
                )}
              </div>
              {(here.length > 0 || openLine === line) && (
                <div className="grid gap-1.5 pb-2 pl-10">
                  {here.length > 0 && (
                    <PlanCommentThread
                      comments={here}
                      version={version}
                      onResolve={onResolve}
                      busy={resolve.isPending}
                    />
                  )}
                  {openLine === line && (
                    <PlanCommentForm
                      line={line}
                      busy={add.isPending}
                      error={add.error?.message ?? null}
                      onCancel={() => setOpenLine(null)}
                      onSubmit={(text) => add.mutate({ line, body: text })}
                    />
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ol>
      {outdated.length > 0 && (
        <div className="grid gap-1.5 border-t border-border px-4 py-3">
          <h3 className="text-xs font-semibold text-muted-fg">
            Outdated: their line changed or vanished in a later version
          </h3>
          <PlanCommentThread
            comments={outdated}
            version={version}
            onResolve={onResolve}
            busy={resolve.isPending}
          />
        </div>
      )}
    </Card>
  );
}
