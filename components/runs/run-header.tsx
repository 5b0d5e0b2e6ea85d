"use client";

import Link from "next/link";
import type { LiveStatus } from "@/components/live/live-client";
import { runsPath } from "@/lib/paths";
import type { RunDetail } from "@/lib/view-models";
import { FreshnessBadge } from "./freshness-badge";
import { RelativeTime } from "./relative-time";
import { RunDuration } from "./run-duration";
import { StatusBadge } from "./status-badge";
import { TagList } from "./tag-list";
import { MetaItem } from "@/components/ui/meta-item";

/** Title block of a run page: name, state, host, start, duration, tags, freshness. */
export function RunHeader({ run, live }: { run: RunDetail; live: LiveStatus }) {
  return (
    <div className="grid gap-2">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h1 className="min-w-0 truncate text-lg font-semibold tracking-tight" title={run.name}>
          {run.name}
        </h1>
        <StatusBadge state={run.state} />
        <div className="ml-auto">
          <FreshnessBadge lastPushAt={run.lastPushAt} state={run.state} live={live} />
        </div>
      </div>
      <dl className="flex flex-wrap items-center gap-x-5 gap-y-1 text-[13px] text-muted-fg tabular-nums">
        <MetaItem label="Kind">{run.kind}</MetaItem>
        <MetaItem label="Host">
          <Link href={runsPath({ host: run.host })} className="rounded-sm text-foreground hover:underline">
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
        {run.tags.length > 0 && (
          <MetaItem label="Tags">
            <TagList tags={run.tags} max={12} />
          </MetaItem>
        )}
      </dl>
      {run.error && (
        <p role="alert" className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 font-mono text-xs whitespace-pre-wrap text-failed">
          {run.error}
        </p>
      )}
      {run.notes && <p className="max-w-4xl text-sm whitespace-pre-wrap text-muted-fg">{run.notes}</p>}
    </div>
  );
}
