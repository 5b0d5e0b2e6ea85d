"use client";

import { useState } from "react";
import { ChevronLeft, ChevronRight } from "lucide-react";
import { Button } from "@/components/ui/button";
import { formatCount } from "@/lib/format";

/** One page of `items` (page 0 first) and the controls' state; a page past the end (items shrank) clamps to the last. */
export function usePaged<T>(items: readonly T[], pageSize: number): { rows: readonly T[]; page: number; pages: number; setPage: (p: number) => void } {
  const [wanted, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / pageSize));
  const page = Math.min(wanted, pages - 1);
  return { rows: items.slice(page * pageSize, (page + 1) * pageSize), page, pages, setPage };
}

/** "21–40 of 364" with Newer / Older buttons under a table that lists newest first; nothing when one page holds everything. */
export function Pager({ page, pages, pageSize, total, onPage, noun = "rows" }: { page: number; pages: number; pageSize: number; total: number; onPage: (p: number) => void; noun?: string }) {
  if (pages <= 1) return null;
  const from = page * pageSize + 1;
  const to = Math.min(total, (page + 1) * pageSize);
  return (
    <nav aria-label={`Pages of ${noun}`} className="flex items-center justify-end gap-2 border-t border-border px-4 py-2 text-xs text-muted-fg tabular-nums">
      <span>
        {formatCount(from)}–{formatCount(to)} of {formatCount(total)} {noun}
      </span>
      <Button variant="outline" size="sm" disabled={page === 0} onClick={() => onPage(page - 1)}>
        <ChevronLeft aria-hidden /> Newer
      </Button>
      <Button variant="outline" size="sm" disabled={page >= pages - 1} onClick={() => onPage(page + 1)}>
        Older <ChevronRight aria-hidden />
      </Button>
    </nav>
  );
}
