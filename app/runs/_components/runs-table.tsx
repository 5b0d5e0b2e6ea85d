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

/** The run list: one dense row per run; benchmark runs can be ticked for comparison. */
export function RunsTable({ runs, selected, onToggle }: RunsTableProps) {
  return (
    <div className="rounded-lg border border-border bg-card">
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
            const selectable = r.kind === "benchmark";
            const engine = engineLabel(r.engine, r.engineVersion);
            return (
              <TableRow key={r.id} data-state={isSelected ? "selected" : undefined}>
                <TableCell>
                  <input
                    type="checkbox"
                    className="size-3.5 translate-y-px accent-primary"
                    checked={isSelected}
                    disabled={!selectable}
                    onChange={() => onToggle(r.id)}
                    aria-label={selectable ? `Select ${r.name} for comparison` : `${r.name} is not a benchmark run`}
                    title={selectable ? "Select for comparison" : "Only benchmark runs can be compared"}
                  />
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
