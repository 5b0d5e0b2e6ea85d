"use client";

import Link from "next/link";
import { RelativeTime } from "@/components/runs/relative-time";
import { RunDuration } from "@/components/runs/run-duration";
import { StatusBadge } from "@/components/runs/status-badge";
import { TagList } from "@/components/runs/tag-list";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { MISSING, formatTokPerS } from "@/lib/format";
import { runPath, runsPath } from "@/lib/paths";
import { engineLabel } from "@/lib/run-config";
import type { RunSummary } from "@/lib/view-models";
import { cn } from "@/lib/utils";

interface RunsTableProps {
  runs: RunSummary[];
  selected: readonly number[];
  onToggle: (id: number) => void;
}

function SelectBox({ run, selected, onToggle }: { run: RunSummary; selected: boolean; onToggle: (id: number) => void }) {
  const selectable = run.kind === "benchmark";
  return (
    <input
      type="checkbox"
      className="size-3.5 translate-y-px accent-primary"
      checked={selected}
      disabled={!selectable}
      onChange={() => onToggle(run.id)}
      aria-label={selectable ? `Select ${run.name} for comparison` : `${run.name} is not a benchmark run`}
      title={selectable ? "Select for comparison" : "Only benchmark runs can be compared"}
    />
  );
}

/** Below 768 px each run is a stacked card: full name on up to two lines, then status and facts. */
function RunCards({ runs, selected, onToggle }: RunsTableProps) {
  return (
    <ul className="divide-y divide-border rounded-lg border border-border bg-card md:hidden" aria-label="Runs">
      {runs.map((r) => (
        <li key={r.id} className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 px-4 py-3">
          <span className="pt-0.5">
            <SelectBox run={r} selected={selected.includes(r.id)} onToggle={onToggle} />
          </span>
          <div className="grid min-w-0 gap-1">
            <Link href={runPath(r.id)} className="line-clamp-2 rounded-sm font-medium break-words hover:underline" title={r.name}>
              {r.name}
            </Link>
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-fg tabular-nums">
              <StatusBadge state={r.state} mismatches={r.countMismatches} />
              <span>{r.kind}</span>
              <span aria-hidden>·</span>
              <Link href={runsPath({ host: r.host })} className="hover:underline">
                {r.host}
              </Link>
              <span aria-hidden>·</span>
              <RelativeTime iso={r.startedAt} />
              <span aria-hidden>·</span>
              <RunDuration run={r} />
              {r.kind === "benchmark" && r.peakOutputTokPerS !== null && <span className="font-medium text-foreground">peak {formatTokPerS(r.peakOutputTokPerS)}</span>}
            </div>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** The run list: one dense row per run (stacked cards on a phone); benchmark runs can be ticked for comparison. */
export function RunsTable(props: RunsTableProps) {
  return (
    <>
      <RunCards {...props} />
      <RunsTableWide {...props} />
    </>
  );
}

function RunsTableWide({ runs, selected, onToggle }: RunsTableProps) {
  return (
    <div className="hidden rounded-lg border border-border bg-card md:block">
      <Table className="table-fixed" label="Runs">
        <colgroup>
          <col className="w-10" />
          <col className="w-24" />
          <col />
          <col className="w-[17%]" />
          <col className="w-32" />
          <col className="w-28" />
          <col className="w-28" />
          <col className="w-28" />
          <col className="w-24" />
          <col className="w-32" />
        </colgroup>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>
              <span className="sr-only">Select for comparison</span>
            </TableHead>
            <TableHead>Kind</TableHead>
            <TableHead>Name</TableHead>
            <TableHead>Model</TableHead>
            <TableHead>Engine</TableHead>
            <TableHead>Host</TableHead>
            <TableHead>Status</TableHead>
            <TableHead>Started</TableHead>
            <TableHead className="text-right">Duration</TableHead>
            <TableHead className="text-right" title="Highest aggregate output tok/s among successful points">
              Peak output
            </TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {runs.map((r) => {
            const isSelected = selected.includes(r.id);
            const engine = engineLabel(r.engine, r.engineVersion);
            return (
              <TableRow key={r.id} data-state={isSelected ? "selected" : undefined}>
                <TableCell>
                  <SelectBox run={r} selected={isSelected} onToggle={onToggle} />
                </TableCell>
                <TableCell className="text-muted-fg">{r.kind}</TableCell>
                <TableCell className="overflow-hidden">
                  <div className="flex min-w-0 items-center gap-2">
                    <Link href={runPath(r.id)} className="truncate rounded-sm font-medium hover:underline" title={r.name}>
                      {r.name}
                    </Link>
                    {r.archivedAt && (
                      <Badge tone="outline" className="shrink-0">
                        archived
                      </Badge>
                    )}
                    <span className="hidden shrink-0 2xl:inline">
                      <TagList tags={r.tags} max={3} nowrap />
                    </span>
                  </div>
                </TableCell>
                <TableCell className="truncate" title={r.model ?? undefined}>
                  {r.model ?? <span className="text-muted-fg">{MISSING}</span>}
                </TableCell>
                <TableCell className="truncate" title={engine ?? undefined}>
                  {engine ?? <span className="text-muted-fg">{MISSING}</span>}
                </TableCell>
                <TableCell className="truncate">
                  <Link href={runsPath({ host: r.host })} className="rounded-sm hover:underline" title={`Runs on ${r.host}`}>
                    {r.host}
                  </Link>
                </TableCell>
                <TableCell>
                  <StatusBadge state={r.state} mismatches={r.countMismatches} />
                </TableCell>
                <TableCell className="text-muted-fg">
                  <RelativeTime iso={r.startedAt} />
                </TableCell>
                <TableCell className="text-right">
                  <RunDuration run={r} />
                </TableCell>
                <TableCell className={cn("text-right", r.peakOutputTokPerS !== null && "font-medium")}>
                  {r.kind === "benchmark" ? formatTokPerS(r.peakOutputTokPerS) : <span className="text-muted-fg">{MISSING}</span>}
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
    </div>
  );
}
