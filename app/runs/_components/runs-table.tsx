"use client";

import { Fragment } from "react";

import { useNow } from "@/components/live/use-now";
import { Table, TableBody, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { withUnitHeader } from "@/lib/column-format";
import type { RunListQuery } from "@/lib/paths";
import { runColumnFormats } from "@/lib/run-columns";
import { foldRunGroups } from "@/lib/run-list";
import type { RunGroupSummary, RunSummary } from "@/lib/view-models";

import { RunGroupCard, RunGroupRow } from "./run-group-row";
import { RunCard, RunTableRow, type RunSelection } from "./run-rows";
import { SortHead } from "./sort-head";

interface RunsTableProps extends RunSelection {
  runs: RunSummary[];
  groups: RunGroupSummary[];
  query: RunListQuery;
  onQuery: (q: RunListQuery) => void;
  expanded: ReadonlySet<string>;
  onToggleGroup: (key: string) => void;
}

function useItems({ runs, groups }: Pick<RunsTableProps, "runs" | "groups">) {
  const byKey = new Map(groups.map((g) => [g.key, g]));
  return { items: foldRunGroups(runs, new Set(byKey.keys())), byKey };
}

/** Below 768 px each run is a stacked card; a group of repeated runs is one card that expands. */
function RunCards(props: RunsTableProps) {
  const { items, byKey } = useItems(props);
  const { selected, onToggle, expanded, onToggleGroup, query } = props;
  return (
    <ul
      className="divide-y divide-border rounded-lg border border-border bg-card md:hidden"
      aria-label="Runs"
    >
      {items.map((item) =>
        item.type === "run" ? (
          <RunCard key={item.run.id} run={item.run} selected={selected} onToggle={onToggle} />
        ) : (
          <Fragment key={item.key}>
            <RunGroupCard
              group={byKey.get(item.key)!}
              members={item.members}
              query={query}
              expanded={expanded.has(item.key)}
              onToggle={() => onToggleGroup(item.key)}
            />
            {expanded.has(item.key) &&
              item.members.map((r) => (
                <RunCard key={r.id} run={r} selected={selected} onToggle={onToggle} nested />
              ))}
          </Fragment>
        ),
      )}
    </ul>
  );
}

function RunsTableWide(props: RunsTableProps) {
  const { items, byKey } = useItems(props);
  const now = useNow();
  // One unit and precision per column (lib/column-format.ts): the header names it, cells are bare numbers.
  const formats = runColumnFormats(props.runs, props.groups, now);
  const { selected, onToggle, expanded, onToggleGroup, query, onQuery } = props;
  return (
    <div className="hidden rounded-lg border border-border bg-card md:block">
      <Table className="table-fixed" label="Runs">
        <colgroup>
          <col className="w-10" />
          <col className="w-24" />
          <col />
          {/* Model and engine narrower than the name: a long model id truncates (full text on hover) before the run's name does. */}
          <col className="w-[13%]" />
          <col className="w-28" />
          <col className="w-28" />
          <col className="w-32" />
          <col className="w-28" />
          <col className="w-28" />
          <col className="w-36" />
        </colgroup>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>
              <span className="sr-only">Select for comparison</span>
            </TableHead>
            <SortHead column="kind" query={query} onSort={onQuery} />
            <SortHead column="name" query={query} onSort={onQuery} />
            <TableHead>Model</TableHead>
            <TableHead>Engine</TableHead>
            <SortHead column="host" query={query} onSort={onQuery} />
            <SortHead column="status" query={query} onSort={onQuery} />
            <SortHead column="startedAt" query={query} onSort={onQuery} />
            <SortHead
              column="duration"
              query={query}
              onSort={onQuery}
              className="text-right"
              label={withUnitHeader("Duration", formats.durationUnit)}
            />
            <SortHead
              column="peak"
              query={query}
              onSort={onQuery}
              className="text-right"
              label="Peak output (tok/s)"
              title="Sort by peak output tok/s: the highest aggregate output tok/s among successful points (benchmark runs)"
            />
          </TableRow>
        </TableHeader>
        <TableBody>
          {items.map((item) =>
            item.type === "run" ? (
              <RunTableRow
                key={item.run.id}
                run={item.run}
                selected={selected}
                onToggle={onToggle}
                formats={formats}
              />
            ) : (
              <Fragment key={item.key}>
                <RunGroupRow
                  group={byKey.get(item.key)!}
                  members={item.members}
                  query={query}
                  expanded={expanded.has(item.key)}
                  onToggle={() => onToggleGroup(item.key)}
                  formats={formats}
                />
                {expanded.has(item.key) &&
                  item.members.map((r) => (
                    <RunTableRow
                      key={r.id}
                      run={r}
                      selected={selected}
                      onToggle={onToggle}
                      nested
                      formats={formats}
                    />
                  ))}
              </Fragment>
            ),
          )}
        </TableBody>
      </Table>
    </div>
  );
}

/** The run list: one dense row per run or group of repeated runs (stacked cards on a phone); sortable headers; benchmark runs can be ticked for comparison. */
export function RunsTable(props: RunsTableProps) {
  return (
    <>
      <RunCards {...props} />
      <RunsTableWide {...props} />
    </>
  );
}
