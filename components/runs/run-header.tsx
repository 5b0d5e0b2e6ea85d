"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Archive, ArchiveRestore, Pencil, TriangleAlert } from "lucide-react";
import Link from "next/link";
import { useState, type ReactNode } from "react";

import type { LiveStatus } from "@/components/live/live-client";
import { useTimeZone } from "@/components/preferences/preferences-provider";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { MetaItem } from "@/components/ui/meta-item";
import { patchRun } from "@/lib/api/fetchers/runs";
import { runQueryKey } from "@/lib/api/query-keys";
import { formatAbsoluteTime } from "@/lib/format";
import { runsPath } from "@/lib/paths";
import type { RunDetail } from "@/lib/view-models";

import { FreshnessBadge } from "./freshness-badge";
import { RelativeTime } from "./relative-time";
import { RunDuration } from "./run-duration";
import { RunEditForm } from "./run-edit-form";
import { StatusBadge } from "./status-badge";

type RunPatch = Parameters<typeof patchRun>[1];

/**
 * Title block of a run page: name, state, host, start, duration, freshness (tags and notes are in
 * the page's side column). With
 * `canEdit` (approvers and admins; the API checks the role too) it offers Edit (name, tags,
 * notes) and Archive / Unarchive. `actions` (e.g. the export menu) sit with those buttons.
 */
export function RunHeader({
  run,
  live,
  canEdit = false,
  actions,
}: {
  run: RunDetail;
  live: LiveStatus;
  canEdit?: boolean;
  actions?: ReactNode;
}) {
  const queryClient = useQueryClient();
  const zone = useTimeZone();
  const [editing, setEditing] = useState(false);
  const save = useMutation({
    mutationFn: (patch: RunPatch) => patchRun(run.id, patch),
    onSuccess: (updated) => {
      queryClient.setQueryData(runQueryKey(run.id), updated);
      setEditing(false);
    },
  });
  const archived = run.archivedAt !== null;

  return (
    <div className="grid gap-2">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h1
          className="min-w-0 truncate text-lg font-semibold tracking-tight max-sm:break-words max-sm:whitespace-normal"
          title={run.name}
        >
          {run.name}
        </h1>
        <StatusBadge state={run.state} mismatches={run.countMismatches} />
        {archived && (
          <Badge
            tone="outline"
            title={`Archived ${formatAbsoluteTime(run.archivedAt!, zone)}; hidden from the run list and the overview`}
          >
            <Archive aria-hidden /> archived
          </Badge>
        )}
        <div className="ml-auto flex flex-wrap items-center justify-end gap-2">
          {actions}
          {canEdit && !editing && (
            <>
              <Button variant="outline" size="sm" onClick={() => (save.reset(), setEditing(true))}>
                <Pencil aria-hidden /> Edit
              </Button>
              <Button
                variant="outline"
                size="sm"
                disabled={save.isPending}
                onClick={() => save.mutate({ archived: !archived })}
              >
                {archived ? <ArchiveRestore aria-hidden /> : <Archive aria-hidden />}
                {archived ? "Unarchive" : "Archive"}
              </Button>
            </>
          )}
          <FreshnessBadge lastPushAt={run.lastPushAt} state={run.state} live={live} />
        </div>
      </div>
      {save.error && !editing && (
        <p role="alert" className="text-sm text-failed">
          Could not change this run: {save.error.message}
        </p>
      )}
      <dl className="flex flex-wrap items-center gap-x-5 gap-y-1 text-[13px] text-muted-fg tabular-nums">
        <MetaItem label="Kind">{run.kind}</MetaItem>
        <MetaItem label="Host">
          <Link
            href={runsPath({ host: run.host })}
            className="rounded-sm text-foreground hover:underline"
          >
            {run.host}
          </Link>
        </MetaItem>
        <MetaItem label="Started">
          <RelativeTime iso={run.startedAt} className="text-foreground" />
        </MetaItem>
        <MetaItem label="Duration">
          <RunDuration run={run} className="text-foreground" />
        </MetaItem>
        <MetaItem label="Key">
          <span className="font-mono text-xs text-foreground">{run.key}</span>
        </MetaItem>
        {run.editedAt && (
          <MetaItem label="Edited">
            <span className="text-foreground">
              <RelativeTime iso={run.editedAt} /> by {run.editedBy}
            </span>
          </MetaItem>
        )}
        {run.archivedAt && (
          <MetaItem label="Archived">
            <span className="text-foreground">
              <RelativeTime iso={run.archivedAt} />
              {run.archivedBy && ` by ${run.archivedBy}`}
            </span>
          </MetaItem>
        )}
      </dl>
      {run.state === "succeeded" && run.countMismatches.length > 0 && (
        <div
          role="status"
          data-testid="count-mismatch"
          className="flex items-start gap-2 rounded-md border border-stale/40 bg-stale-bg px-3 py-2 text-sm text-stale"
        >
          <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
          <div>
            <span className="font-medium">
              The run reported success, but its end counts disagree:{" "}
            </span>
            {run.countMismatches.map((m) => m.message).join("; ")}.
          </div>
        </div>
      )}
      {run.error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 font-mono text-xs whitespace-pre-wrap text-failed"
        >
          {run.error}
        </p>
      )}
      {editing && (
        <RunEditForm
          run={run}
          busy={save.isPending}
          error={save.error?.message ?? null}
          onSave={(edit) => save.mutate(edit)}
          onCancel={() => setEditing(false)}
        />
      )}
    </div>
  );
}
