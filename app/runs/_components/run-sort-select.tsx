"use client";

import { Select } from "@/components/ui/input";
import type { RunListQuery } from "@/lib/paths";
import {
  defaultSortDir,
  keyedSortOf,
  RUN_SORT_LABELS,
  RUN_SORTS,
  runSortLabel,
  type BuiltinRunSort,
  type RunSort,
  type SortDir,
} from "@/lib/run-list";

import { effectiveSort } from "./sort-head";

const DIR_WORDS: Record<BuiltinRunSort, Record<SortDir, string>> = {
  startedAt: { desc: "newest first", asc: "oldest first" },
  duration: { desc: "longest first", asc: "shortest first" },
  peak: { desc: "highest first", asc: "lowest first" },
  name: { asc: "A–Z", desc: "Z–A" },
  kind: { asc: "A–Z", desc: "Z–A" },
  status: { asc: "A–Z", desc: "Z–A" },
  host: { asc: "A–Z", desc: "Z–A" },
};

const KEYED_DIR_WORDS: Record<SortDir, string> = { desc: "highest first", asc: "lowest first" };

/** The phone's sort control (the stacked cards have no column headers): one select of column and direction; a keyed sort (`config.…`, `metric.…`) from the URL is offered too. */
export function RunSortSelect({
  query,
  onQuery,
}: {
  query: RunListQuery;
  onQuery: (q: RunListQuery) => void;
}) {
  const { sort, dir } = effectiveSort(query);
  const keyed = keyedSortOf(sort) ? sort : null;
  return (
    <label className="flex items-center gap-2 text-sm text-muted-fg md:hidden">
      Sort
      <Select
        value={`${sort}:${dir}`}
        onChange={(e) => {
          // A metric key may hold ":", the direction never does.
          const v = e.currentTarget.value;
          const s = v.slice(0, v.lastIndexOf(":")) as RunSort;
          const d = v.slice(v.lastIndexOf(":") + 1) as SortDir;
          onQuery({ ...query, sort: s, dir: d, cursor: undefined, page: undefined });
        }}
        className="min-w-0 flex-1"
      >
        {keyed &&
          (["desc", "asc"] as const).map((d) => (
            <option key={`${keyed}:${d}`} value={`${keyed}:${d}`}>
              {runSortLabel(keyed)} · {KEYED_DIR_WORDS[d]}
            </option>
          ))}
        {RUN_SORTS.flatMap((s) =>
          (defaultSortDir(s) === "desc"
            ? (["desc", "asc"] as const)
            : (["asc", "desc"] as const)
          ).map((d) => (
            <option key={`${s}:${d}`} value={`${s}:${d}`}>
              {RUN_SORT_LABELS[s]} · {DIR_WORDS[s][d]}
            </option>
          )),
        )}
      </Select>
    </label>
  );
}
