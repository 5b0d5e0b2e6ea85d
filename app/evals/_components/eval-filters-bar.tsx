"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTransition } from "react";

import { buttonVariants } from "@/components/ui/button";
import { Select } from "@/components/ui/input";
import type { EvalOverviewQuery as EvalFilters } from "@/lib/api/evals";
import { evalsPath } from "@/lib/paths";
import { cn } from "@/lib/utils";

/** Category and dataset menus; the URL is the state. */
export function EvalFiltersBar({
  filters,
  categories,
  datasets,
}: {
  filters: EvalFilters;
  categories: string[];
  datasets: string[];
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const go = (next: EvalFilters) => startTransition(() => router.push(evalsPath(next)));
  // A filter value from the URL that no result has (yet) stays selectable.
  const withCurrent = (list: string[], current: string | undefined) =>
    current && !list.includes(current) ? [current, ...list] : list;
  return (
    <div
      role="search"
      aria-label="Filter evals"
      aria-busy={pending}
      className="flex flex-wrap items-center gap-2"
    >
      <Select
        aria-label="Category"
        value={filters.category ?? ""}
        onChange={(e) => go({ ...filters, category: e.currentTarget.value || undefined })}
      >
        <option value="">All categories</option>
        {withCurrent(categories, filters.category).map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </Select>
      <Select
        aria-label="Dataset"
        value={filters.dataset ?? ""}
        onChange={(e) => go({ ...filters, dataset: e.currentTarget.value || undefined })}
      >
        <option value="">All datasets</option>
        {withCurrent(datasets, filters.dataset).map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </Select>
      {(filters.category || filters.dataset) && (
        <Link
          href={evalsPath()}
          className={cn(buttonVariants({ variant: "ghost" }), "text-muted-fg")}
        >
          Clear filters
        </Link>
      )}
    </div>
  );
}
