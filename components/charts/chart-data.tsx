"use client";

import { useState, type ReactNode } from "react";

import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";

/** The numbers behind a chart, as text: column titles (with units) and one row of cells per datum. */
export interface ChartTableData {
  columns: string[];
  rows: string[][];
}

/**
 * A data table built only when the reader opens it: `rows` is the number of rows `build` returns.
 * Large live charts (a metric with 1,000 points) use it so a redraw formats no table cell.
 */
export interface LazyChartTable {
  rows: number;
  build: () => ChartTableData;
}

/**
 * A chart with an accessible name and its data as a table: the figure is named `label` for screen
 * readers (the SVG itself is decoration to them), and a closed "Data table" disclosure under it
 * holds every plotted value, for readers, keyboard users and copy-paste alike (its rows are
 * rendered once it is opened, so a closed one costs nothing; a {@link LazyChartTable} is not even
 * built until then). `dataKey`, `points` and `lastStep`
 * become `data-key` / `data-points` / `data-last-step` attributes (for tests, tools and the
 * live-browser bench, which times a pushed step until the chart holds it).
 */
export function ChartFigure({
  label,
  table,
  className,
  testId,
  dataKey,
  points,
  lastStep,
  children,
}: {
  label: string;
  table: ChartTableData | LazyChartTable | null;
  className?: string;
  testId?: string;
  dataKey?: string;
  points?: number;
  lastStep?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const rowCount =
    table === null ? 0 : typeof table.rows === "number" ? table.rows : table.rows.length;
  const shown = open && table !== null ? ("build" in table ? table.build() : table) : null;
  return (
    <figure
      role="figure"
      aria-label={label}
      className={className ?? "grid gap-2"}
      data-testid={testId}
      data-key={dataKey}
      data-points={points}
      data-last-step={lastStep}
    >
      {children}
      {table && rowCount > 0 && (
        <details
          className="text-xs"
          data-testid="chart-data"
          onToggle={(e) => setOpen(e.currentTarget.open)}
        >
          <summary className="w-fit cursor-pointer rounded-sm text-muted-fg hover:text-foreground">
            Data table ({rowCount} rows)
          </summary>
          {shown && (
            <Table label={`${label}: data`} containerClassName="mt-1 max-h-72 overflow-y-auto">
              <TableHeader>
                <TableRow className="hover:bg-transparent">
                  {shown.columns.map((c, i) => (
                    <TableHead key={c} className={i > 0 ? "text-right" : undefined}>
                      {c}
                    </TableHead>
                  ))}
                </TableRow>
              </TableHeader>
              <TableBody>
                {shown.rows.map((r, i) => (
                  <TableRow key={i}>
                    {r.map((cell, j) => (
                      <TableCell key={j} className={j > 0 ? "text-right" : undefined}>
                        {cell}
                      </TableCell>
                    ))}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
        </details>
      )}
    </figure>
  );
}

/**
 * A sweep chart's data table: one row per series and plotted level (`x` labelled by `xLabel`,
 * e.g. "C=32"), a "Series" column only when there are several series, then `values` of each datum.
 */
export function sweepTable<D>(
  series: ReadonlyArray<{ label: string; data: readonly D[] }>,
  xTitle: string,
  xLabel: (d: D) => string,
  values: ReadonlyArray<{ title: string; value: (d: D) => string }>,
): ChartTableData {
  const multi = series.length > 1;
  const columns = [...(multi ? ["Series"] : []), xTitle, ...values.map((v) => v.title)];
  const rows = series.flatMap((s) =>
    s.data.map((d) => [
      ...(multi ? [s.label || "—"] : []),
      xLabel(d),
      ...values.map((v) => v.value(d)),
    ]),
  );
  return { columns, rows };
}
