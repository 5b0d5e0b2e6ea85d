"use client";

import { Fragment } from "react";

import { useNow } from "@/components/live/use-now";
import { Table, TableBody, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { withUnitHeader } from "@/lib/column-format";
import { metricTitle } from "@/lib/metric-labels";
import type { RunListQuery } from "@/lib/paths";
import { metricColumnFormat, runColumnFormats } from "@/lib/run-columns";
import { foldRunGroups } from "@/lib/run-list";
import { DEFAULT_RUN_COLUMNS, type RunColumns } from "@/lib/run-list-columns";
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
  const configKeys = query.cols?.config ?? [];
  const metricKeys = query.cols?.metric ?? [];
  // One precision per metric across the page's cards, as in the table's columns.
  const metricFormats = Object.fromEntries(
    metricKeys.map((k) => [
      k,
      metricColumnFormat(
        k,
        props.runs.map((r) => r.metrics?.[k]),
      ),
    ]),
  );
  return (
    <ul
      className="divide-y divide-border rounded-lg border border-border bg-card md:hidden"
      aria-label="Runs"
    >
      {items.map((item) =>
        item.type === "run" ? (
          <RunCard
            key={item.run.id}
            run={item.run}
            selected={selected}
            onToggle={onToggle}
            configKeys={configKeys}
            metricKeys={metricKeys}
            metricFormats={metricFormats}
          />
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
                <RunCard
                  key={r.id}
                  run={r}
                  selected={selected}
                  onToggle={onToggle}
                  nested
                  configKeys={configKeys}
                  metricKeys={metricKeys}
                  metricFormats={metricFormats}
                />
              ))}
          </Fragment>
        ),
      )}
    </ul>
  );
}

/** Width of each built-in optional column (its `<col>` class) in rem; the model column's 13% counted as 10rem. */
const BASE_WIDTH_REM: Record<RunColumns["base"][number], number> = {
  model: 10,
  engine: 7,
  host: 7,
  status: 8,
  startedAt: 7,
  duration: 7,
  peak: 9,
};

function RunsTableWide(props: RunsTableProps) {
  const { items, byKey } = useItems(props);
  const now = useNow();
  // One unit and precision per column (lib/column-format.ts): the header names it, cells are bare numbers.
  const { selected, onToggle, expanded, onToggleGroup, query, onQuery } = props;
  const cols = query.cols ?? DEFAULT_RUN_COLUMNS;
  const formats = runColumnFormats(props.runs, props.groups, now, cols.metric, cols.config);
  const extra = cols.config.length + cols.metric.length;
  const show = (c: (typeof cols.base)[number]) => cols.base.includes(c);
  // With config (6rem numbers, 11rem text) and metric columns (8rem, room for "KV cache (%)") the table scrolls sideways rather than squeeze the name below 18rem.
  const configRem = cols.config.reduce((sum, k) => sum + (formats.numericConfig[k] ? 6 : 11), 0);
  const minWidthRem =
    8.5 +
    18 +
    cols.base.reduce((sum, c) => sum + BASE_WIDTH_REM[c], 0) +
    configRem +
    8 * cols.metric.length;
  return (
    <div className="hidden rounded-lg border border-border bg-card md:block">
      <Table
        className="table-fixed"
        label="Runs"
        style={extra > 0 ? { minWidth: `${minWidthRem}rem` } : undefined}
      >
        <colgroup>
          <col className="w-10" />
          <col className="w-24" />
          <col />
          {/* Model and engine narrower than the name: a long model id truncates (full text on hover) before the run's name does. */}
          {show("model") && <col className="w-[13%]" />}
          {show("engine") && <col className="w-28" />}
          {show("host") && <col className="w-28" />}
          {show("status") && <col className="w-32" />}
          {show("startedAt") && <col className="w-28" />}
          {show("duration") && <col className="w-28" />}
          {show("peak") && <col className="w-36" />}
          {/* Numbers need little room; text values (a model id, a dataset) get more before they cut. */}
          {cols.config.map((k) => (
            <col key={`c:${k}`} className={formats.numericConfig[k] ? "w-24" : "w-44"} />
          ))}
          {cols.metric.map((k) => (
            <col key={`m:${k}`} className="w-32" />
          ))}
        </colgroup>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>
              <span className="sr-only">Select for comparison</span>
            </TableHead>
            <SortHead column="kind" query={query} onSort={onQuery} />
            <SortHead column="name" query={query} onSort={onQuery} />
            {show("model") && <TableHead>Model</TableHead>}
            {show("engine") && <TableHead>Engine</TableHead>}
            {show("host") && <SortHead column="host" query={query} onSort={onQuery} />}
            {show("status") && <SortHead column="status" query={query} onSort={onQuery} />}
            {show("startedAt") && <SortHead column="startedAt" query={query} onSort={onQuery} />}
            {show("duration") && (
              <SortHead
                column="duration"
                query={query}
                onSort={onQuery}
                className="text-right"
                label={withUnitHeader("Duration", formats.durationUnit)}
                wrap
              />
            )}
            {show("peak") && (
              <SortHead
                column="peak"
                query={query}
                onSort={onQuery}
                className="text-right"
                label="Peak output (tok/s)"
                title="Sort by peak output tok/s: the highest aggregate output tok/s among successful points (benchmark runs)"
              />
            )}
            {cols.config.map((k) => (
              <SortHead
                key={`c:${k}`}
                column={`config.${k}`}
                query={query}
                onSort={onQuery}
                className={formats.numericConfig[k] ? "truncate text-right" : "truncate"}
                title={`Sort by config.${k}`}
              />
            ))}
            {cols.metric.map((k) => (
              <SortHead
                key={`m:${k}`}
                column={`metric.${k}`}
                query={query}
                onSort={onQuery}
                className="truncate text-right"
                label={metricTitle(k)}
                title={`Sort by the latest value of ${k}`}
              />
            ))}
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
                cols={cols}
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
                  cols={cols}
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
                      cols={cols}
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
