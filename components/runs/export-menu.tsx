"use client";

import { useQuery } from "@tanstack/react-query";
import { ChevronDown, Download } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";

import { buttonVariants } from "@/components/ui/button";
import { fetchRunExportSummary } from "@/lib/api/fetchers/runs";
import { runExportSummaryQueryKey } from "@/lib/api/query-keys";
import {
  compareExportFilename,
  compareExportPath,
  runExportFilename,
  runExportPath,
} from "@/lib/export-paths";
import { formatCount } from "@/lib/format";
import { cn } from "@/lib/utils";
import {
  EXPORT_DATA,
  EXPORT_DATA_LABELS,
  EXPORT_FORMATS,
  type ExportData,
} from "@/lib/view-models/export";

const linkClass = cn(
  buttonVariants({ variant: "outline", size: "sm" }),
  "h-6 px-2 font-mono text-[11px]",
);

/**
 * "Export" button of a run page: opens a small menu listing each kind of data the run has
 * (benchmark points, metric points, eval results, progress reports) with its row count and CSV /
 * JSON download links. Counts are read when the menu opens, so they are current.
 */
export function ExportMenu({ runId, className }: { runId: number; className?: string }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const summary = useQuery({
    queryKey: runExportSummaryQueryKey(runId),
    queryFn: ({ signal }) => fetchRunExportSummary(runId, signal),
    enabled: open,
    staleTime: 0,
  });

  // Closing on a click outside or Escape: listening to the document, an external system.
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  const kinds = summary.data ? EXPORT_DATA.filter((d) => summary.data.rows[d] > 0) : [];
  return (
    <div ref={root} className={cn("relative", className)}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((o) => !o)}
        className={buttonVariants({ variant: "outline", size: "sm" })}
      >
        <Download aria-hidden />
        Export
        <ChevronDown aria-hidden className={cn("transition-transform", open && "rotate-180")} />
      </button>
      {open && (
        <div
          id={menuId}
          role="region"
          aria-label="Export this run's data"
          className="absolute right-0 z-20 mt-1 w-80 rounded-lg border border-border bg-card p-1 shadow-md"
        >
          <p className="px-2.5 pt-1.5 pb-1 text-xs text-muted-fg">
            Download every stored row; units are in the column names.
          </p>
          {summary.isPending ? (
            <p className="px-2.5 py-2 text-sm text-muted-fg">Counting rows…</p>
          ) : summary.isError ? (
            <p role="alert" className="px-2.5 py-2 text-sm text-failed">
              Could not read what this run holds ({summary.error.message}).
            </p>
          ) : kinds.length === 0 ? (
            <p className="px-2.5 py-2 text-sm text-muted-fg">Nothing stored for this run yet.</p>
          ) : (
            <ul className="grid">
              {kinds.map((d) => (
                <ExportRow key={d} runId={runId} data={d} rows={summary.data?.rows[d] ?? 0} />
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

function ExportRow({ runId, data, rows }: { runId: number; data: ExportData; rows: number }) {
  const label = EXPORT_DATA_LABELS[data];
  return (
    <li className="flex items-center gap-2 rounded-md px-2.5 py-1.5 hover:bg-muted/60">
      <span className="min-w-0 flex-1 text-sm">
        {label}
        <span className="ml-1.5 text-xs text-muted-fg tabular-nums">
          {formatCount(rows)} row{rows === 1 ? "" : "s"}
        </span>
      </span>
      {EXPORT_FORMATS.map((f) => (
        <a
          key={f}
          href={runExportPath(runId, data, f)}
          download={runExportFilename(runId, data, f)}
          aria-label={`Download ${label.toLowerCase()} as ${f.toUpperCase()}`}
          className={linkClass}
        >
          {f.toUpperCase()}
        </a>
      ))}
    </li>
  );
}

/** "Export points: CSV JSON" for a comparison: every compared run's benchmark points in one file. */
export function CompareExportLinks({
  ids,
  className,
}: {
  ids: readonly number[];
  className?: string;
}) {
  if (ids.length === 0) return null;
  return (
    <span className={cn("flex items-center gap-1.5 text-xs text-muted-fg", className)}>
      <Download aria-hidden className="size-3.5" />
      Export points
      {EXPORT_FORMATS.map((f) => (
        <a
          key={f}
          href={compareExportPath(ids, f)}
          download={compareExportFilename(ids, f)}
          aria-label={`Download the compared runs' benchmark points as ${f.toUpperCase()}`}
          className={linkClass}
        >
          {f.toUpperCase()}
        </a>
      ))}
    </span>
  );
}
