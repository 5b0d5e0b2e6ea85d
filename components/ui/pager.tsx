"use client";

import { ChevronLeft, ChevronRight } from "lucide-react";
import { useId, useState } from "react";

import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/input";
import { formatCount } from "@/lib/format";
import {
  clampPage,
  DEFAULT_PAGE_SIZES,
  pageAfterResize,
  pageBounds,
  pageCount,
} from "@/lib/paging";

/** What {@link usePaged} returns: the page's rows and everything {@link Pager} needs. */
export interface Paged<T> {
  rows: readonly T[];
  page: number;
  pages: number;
  pageSize: number;
  pageSizes: readonly number[];
  total: number;
  setPage: (page: number) => void;
  setPageSize: (size: number) => void;
}

/**
 * One page of `items` (page 0 first) with a page-size choice (`pageSizes`, the first the default):
 * a page past the end (items shrank) clamps to the last; a new size keeps the first visible row in view.
 */
export function usePaged<T>(
  items: readonly T[],
  pageSizes: readonly number[] = DEFAULT_PAGE_SIZES,
): Paged<T> {
  const [wanted, setPage] = useState(0);
  const [pageSize, setSize] = useState(pageSizes[0] ?? 25);
  const total = items.length;
  const page = clampPage(wanted, total, pageSize);
  const { from, to } = pageBounds(page, total, pageSize);
  const setPageSize = (size: number) => {
    setPage(pageAfterResize(page, pageSize, size));
    setSize(size);
  };
  return {
    rows: items.slice(from, to),
    page,
    pages: pageCount(total, pageSize),
    pageSize,
    pageSizes,
    total,
    setPage,
    setPageSize,
  };
}

/**
 * Page controls under a table: "21–40 of 364 artifacts", a rows-per-page choice and Newer / Older
 * buttons (`order: "newest"`, for tables listed newest first) or Previous / Next. Plain buttons and a
 * select, so it works from the keyboard. Nothing when every row fits the smallest page size.
 */
export function Pager({
  paged,
  noun = "rows",
  order = "newest",
}: {
  paged: Paged<unknown>;
  noun?: string;
  order?: "newest" | "plain";
}) {
  const id = useId();
  const { page, pages, pageSize, pageSizes, total, setPage, setPageSize } = paged;
  if (total <= Math.min(...pageSizes)) return null;
  const { from, to } = pageBounds(page, total, pageSize);
  const [back, forward] = order === "newest" ? ["Newer", "Older"] : ["Previous", "Next"];
  return (
    <nav
      aria-label={`Pages of ${noun}`}
      className="flex flex-wrap items-center justify-end gap-x-3 gap-y-2 border-t border-border px-4 py-2 text-xs text-muted-fg tabular-nums"
      data-testid="pager"
    >
      <span className="mr-auto" aria-live="polite">
        {formatCount(from + 1)}–{formatCount(to)} of {formatCount(total)} {noun}
      </span>
      {pageSizes.length > 1 && (
        <span className="flex items-center gap-1.5">
          <label htmlFor={id}>Per page</label>
          <Select
            id={id}
            value={pageSize}
            onChange={(e) => setPageSize(Number(e.currentTarget.value))}
            className="h-7 text-xs"
          >
            {pageSizes.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </span>
      )}
      <span className="flex items-center gap-2">
        <Button variant="outline" size="sm" disabled={page === 0} onClick={() => setPage(page - 1)}>
          <ChevronLeft aria-hidden /> {back}
        </Button>
        <span>
          page {page + 1} of {pages}
        </span>
        <Button
          variant="outline"
          size="sm"
          disabled={page >= pages - 1}
          onClick={() => setPage(page + 1)}
        >
          {forward} <ChevronRight aria-hidden />
        </Button>
      </span>
    </nav>
  );
}
