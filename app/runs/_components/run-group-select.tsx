"use client";

import { Select } from "@/components/ui/input";
import type { RunListQuery } from "@/lib/paths";
import { keyedSortOf, type RunGroupBy } from "@/lib/run-list";
import { configColumnKeys } from "@/lib/run-list-columns";
import type { RunSummary } from "@/lib/view-models";

/**
 * The run list's "Group" select: repeated runs (the default), by host, by model, none, or by any
 * config key the listed runs carry (`group=config.<path>`, e.g. `config.tp`); the chosen key stays
 * offered when the page lacks it. Choosing restarts paging.
 */
export function RunGroupSelect({
  query,
  runs,
  onQuery,
}: {
  query: RunListQuery;
  runs: readonly RunSummary[];
  onQuery: (q: RunListQuery) => void;
}) {
  const chosen = query.group ? keyedSortOf(query.group) : null;
  const found = configColumnKeys(
    runs.map((r) => r.config),
    20,
  );
  const configKeys =
    chosen?.source === "config" && !found.includes(chosen.path) ? [chosen.path, ...found] : found;
  return (
    <label className="flex items-center gap-2 text-sm text-muted-fg">
      Group
      {/* Named "Group" on its own: the label's text would otherwise take in the chosen option. */}
      <Select
        aria-label="Group"
        value={query.group ?? "repeated"}
        className="max-w-48"
        onChange={(e) => {
          const v = e.currentTarget.value;
          onQuery({
            ...query,
            group: v === "repeated" ? undefined : (v as RunGroupBy),
            cursor: undefined,
            page: undefined,
          });
        }}
      >
        <option value="repeated">repeated runs</option>
        <option value="host">by host</option>
        <option value="model">by model</option>
        <option value="off">none</option>
        {configKeys.length > 0 && (
          <optgroup label="by config key">
            {configKeys.map((k) => (
              <option key={k} value={`config.${k}`}>
                by {k}
              </option>
            ))}
          </optgroup>
        )}
      </Select>
    </label>
  );
}
