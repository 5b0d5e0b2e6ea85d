"use client";

import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";

import { TableHead } from "@/components/ui/table";
import type { RunListQuery } from "@/lib/paths";
import {
  DEFAULT_RUN_SORT,
  defaultSortDir,
  keyedSortOf,
  runSortLabel,
  type RunSort,
  type SortDir,
} from "@/lib/run-list";
import { cn } from "@/lib/utils";

/** The sort a run-list query asks for, defaults filled in. */
export function effectiveSort(query: RunListQuery): { sort: RunSort; dir: SortDir } {
  const sort = query.sort ?? DEFAULT_RUN_SORT;
  return { sort, dir: query.dir ?? defaultSortDir(sort) };
}

/** The query after choosing `column`: the same column flips direction, another starts at its default; paging restarts. */
export function sortedBy(query: RunListQuery, column: RunSort): RunListQuery {
  const { sort, dir } = effectiveSort(query);
  const nextDir = sort === column ? (dir === "asc" ? "desc" : "asc") : defaultSortDir(column);
  return { ...query, sort: column, dir: nextDir, cursor: undefined, page: undefined };
}

/** A column header that sorts the list: a button inside, `aria-sort` on the header cell; `label` overrides the column's name (e.g. with its unit). */
export function SortHead({
  column,
  query,
  onSort,
  className,
  title,
  label,
  wrap = false,
}: {
  column: RunSort;
  query: RunListQuery;
  onSort: (q: RunListQuery) => void;
  className?: string;
  title?: string;
  label?: string;
  /** Let the label wrap at its spaces (a figure column's "Duration (h:mm)") instead of cutting it with "…". */
  wrap?: boolean;
}) {
  const { sort, dir } = effectiveSort(query);
  const active = sort === column;
  const Icon = !active ? ArrowUpDown : dir === "asc" ? ArrowUp : ArrowDown;
  const right = className?.includes("text-right");
  return (
    <TableHead
      aria-sort={active ? (dir === "asc" ? "ascending" : "descending") : "none"}
      className={className}
    >
      <button
        type="button"
        onClick={() => onSort(sortedBy(query, column))}
        title={
          title ??
          `Sort by ${keyedSortOf(column) ? runSortLabel(column) : runSortLabel(column).toLowerCase()}`
        }
        className={cn(
          "inline-flex max-w-full items-center gap-1 rounded-sm hover:text-foreground",
          active && "text-foreground",
          right && "flex-row-reverse",
        )}
      >
        <span className={cn("min-w-0", wrap ? "whitespace-normal" : "truncate")}>
          {label ?? runSortLabel(column)}
        </span>
        <Icon aria-hidden className={cn("size-3 shrink-0", !active && "opacity-40")} />
      </button>
    </TableHead>
  );
}
