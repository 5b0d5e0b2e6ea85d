"use client";

import { ChevronRight, Layers } from "lucide-react";
import Link from "next/link";

import { RelativeTime } from "@/components/runs/relative-time";
import { StatusBadge } from "@/components/runs/status-badge";
import { TableCell, TableRow } from "@/components/ui/table";
import { formatTokPerS, MISSING } from "@/lib/format";
import { runPath, runsPath, type RunListQuery } from "@/lib/paths";
import type { RunColumnFormats } from "@/lib/run-columns";
import type { RunColumns } from "@/lib/run-list-columns";
import { cn } from "@/lib/utils";
import type { RunGroupSummary, RunSummary } from "@/lib/view-models";

interface GroupProps {
  group: RunGroupSummary;
  /** The group's runs on this page, in list order. */
  members: readonly RunSummary[];
  query: RunListQuery;
  expanded: boolean;
  onToggle: () => void;
}

function Toggle({ group, members, expanded, onToggle }: GroupProps) {
  return (
    <button
      type="button"
      onClick={onToggle}
      aria-expanded={expanded}
      className="flex min-w-0 items-center gap-2 rounded-sm text-left font-medium hover:underline"
      title={`${group.count} runs of ${group.label}`}
    >
      <ChevronRight
        aria-hidden
        className={cn(
          "size-4 shrink-0 text-muted-fg transition-transform",
          expanded && "rotate-90",
        )}
      />
      <Layers aria-hidden className="size-3.5 shrink-0 text-muted-fg" />
      <span className="truncate">{group.label}</span>
      <span className="shrink-0 rounded-full bg-muted px-1.5 text-xs font-normal text-muted-fg tabular-nums">
        {group.count} runs{members.length < group.count ? ` · ${members.length} here` : ""}
      </span>
    </button>
  );
}

function AllLink({ group, members, query }: GroupProps) {
  if (members.length >= group.count) return null;
  return (
    <Link
      href={runsPath({ ...query, sweep: group.key, cursor: undefined, page: undefined })}
      className="shrink-0 text-xs text-link underline-offset-4 hover:underline"
    >
      Show all {group.count}
    </Link>
  );
}

function Best({ group, formats }: { group: RunGroupSummary; formats?: RunColumnFormats }) {
  if (group.bestPeakOutputTokPerS === null || group.bestRunId === null)
    return <span className="text-muted-fg">{MISSING}</span>;
  return (
    <Link
      href={runPath(group.bestRunId)}
      className="font-medium hover:underline"
      title="Best peak output tok/s in the group (opens that run)"
    >
      best{" "}
      {formats
        ? formats.peak(group.bestPeakOutputTokPerS)
        : formatTokPerS(group.bestPeakOutputTokPerS)}
    </Link>
  );
}

/** A table row standing for repeated runs of one sweep: count, hosts, latest state and start, best peak; expands to its runs. */
export function RunGroupRow(props: GroupProps & { formats: RunColumnFormats; cols: RunColumns }) {
  const { group, members, cols } = props;
  const show = (c: RunColumns["base"][number]) => cols.base.includes(c);
  const kinds = [...new Set(members.map((m) => m.kind))];
  // Groups by host or by a config key may mix models: name one only when the page's members share it.
  const models = [...new Set(members.map((m) => m.model ?? MISSING))];
  return (
    <TableRow data-group={group.key}>
      <TableCell />
      <TableCell className="truncate text-muted-fg" title={kinds.join(", ")}>
        {kinds.length === 1 ? kinds[0] : `${kinds.length} kinds`}
      </TableCell>
      <TableCell className="overflow-hidden">
        <div className="flex min-w-0 items-center gap-2">
          <Toggle {...props} />
          <AllLink {...props} />
        </div>
      </TableCell>
      {show("model") && (
        <TableCell className="truncate text-muted-fg" title={models.join(", ")}>
          {models.length === 1 ? models[0] : `${models.length} models`}
        </TableCell>
      )}
      {show("engine") && <TableCell />}
      {show("host") && (
        <TableCell className="truncate text-muted-fg">
          {group.hostCount === 1 ? members[0]?.host : `${group.hostCount} hosts`}
        </TableCell>
      )}
      {show("status") && (
        <TableCell>
          {/* "latest" beside the badge ran into the Started column at 1440 px (issue 12): it labels the time instead. */}
          <span className="inline-flex" title="State of the newest run in the group">
            <StatusBadge state={group.latestState} />
          </span>
        </TableCell>
      )}
      {show("startedAt") && (
        <TableCell className="text-muted-fg">
          <span className="text-xs">latest </span>
          <RelativeTime iso={group.latestStartedAt} />
        </TableCell>
      )}
      {show("duration") && <TableCell />}
      {show("peak") && (
        <TableCell className="text-right">
          <Best group={group} formats={props.formats} />
        </TableCell>
      )}
      {[...cols.config, ...cols.metric].map((k, i) => (
        <TableCell key={`${i}:${k}`} />
      ))}
    </TableRow>
  );
}

/** The phone's card for a group of repeated runs; its runs follow when expanded. */
export function RunGroupCard(props: GroupProps) {
  const { group } = props;
  return (
    <li className="grid gap-1 px-4 py-3" data-group={group.key}>
      <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
        <Toggle {...props} />
        <AllLink {...props} />
      </div>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 pl-6 text-xs text-muted-fg tabular-nums">
        <StatusBadge state={group.latestState} />
        <span>latest</span>
        <RelativeTime iso={group.latestStartedAt} />
        <span aria-hidden>·</span>
        <span>{group.hostCount === 1 ? "1 host" : `${group.hostCount} hosts`}</span>
        {group.bestPeakOutputTokPerS !== null && (
          <>
            <span aria-hidden>·</span>
            <Best group={group} />
          </>
        )}
      </div>
    </li>
  );
}
