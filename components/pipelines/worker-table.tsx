import { RotateCcw, TriangleAlert } from "lucide-react";

import { Meter } from "@/components/hosts/gpu-bars";
import { RelativeTime } from "@/components/runs/relative-time";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatCount } from "@/lib/format";
import { cn } from "@/lib/utils";
import type { WorkerView } from "@/lib/view-models/pipeline";

import { formatFraction, formatRate } from "./units";

/**
 * One row per worker (e.g. GPU 0–3): done (of its shard), its windowed rate, last push, boot and
 * restarts. A silent worker is amber with an icon; restarts are counted from distinct boots.
 */
export function WorkerTable({
  workers,
  unit,
}: {
  workers: readonly WorkerView[];
  unit: string | null;
}) {
  const showUploaded = workers.some((w) => w.counters["s3.uploaded"] !== undefined);
  const showTotal = workers.some((w) => w.total !== null);
  return (
    <Table>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Worker</TableHead>
          <TableHead className="text-right">Done{unit ? ` (${unit})` : ""}</TableHead>
          {showTotal && <TableHead className="w-32">of its total</TableHead>}
          <TableHead className="text-right">Rate (5 min)</TableHead>
          {showUploaded && <TableHead className="text-right">Uploaded</TableHead>}
          <TableHead>Last push</TableHead>
          <TableHead>Boot</TableHead>
          <TableHead className="text-right">Restarts</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {workers.map((w) => {
          const stale = w.state === "stale";
          const fraction = w.done !== null && w.total ? Math.min(1, w.done / w.total) : null;
          return (
            <TableRow
              key={w.workerId}
              data-state={w.state}
              className={cn(stale && "bg-stale-bg/45 hover:bg-stale-bg/60")}
            >
              <TableCell className="font-medium">
                <span className="flex items-center gap-1.5">
                  {stale && <TriangleAlert aria-label="silent" className="size-3.5 text-stale" />}
                  {w.workerId}
                </span>
              </TableCell>
              <TableCell className="text-right">{formatCount(w.done)}</TableCell>
              {showTotal && (
                <TableCell>
                  {fraction !== null ? (
                    <span className="flex items-center gap-2">
                      <Meter
                        pct={fraction * 100}
                        tone={stale ? "stale" : "running"}
                        className="w-16"
                      />
                      <span className="text-xs text-muted-fg">{formatFraction(fraction)}</span>
                    </span>
                  ) : (
                    <span className="text-muted-fg">—</span>
                  )}
                </TableCell>
              )}
              <TableCell className={cn("text-right", stale && "text-stale")}>
                {w.state === "ended" ? "—" : formatRate(w.ratePerS, w.unit ?? unit)}
              </TableCell>
              {showUploaded && (
                <TableCell className="text-right">
                  {formatCount(w.counters["s3.uploaded"])}
                </TableCell>
              )}
              <TableCell className={cn(stale && "font-medium text-stale")}>
                <RelativeTime iso={w.lastPushAt} />
              </TableCell>
              <TableCell
                className="max-w-40 truncate font-mono text-xs text-muted-fg"
                title={w.bootId}
              >
                {w.bootId}
              </TableCell>
              <TableCell className="text-right">
                {w.restarts > 0 ? (
                  <span
                    className="inline-flex items-center gap-1 font-medium text-stale"
                    title={`${w.restarts} restart${w.restarts === 1 ? "" : "s"}: counters were carried over, totals stay monotonic`}
                  >
                    <RotateCcw aria-hidden className="size-3.5" />
                    {w.restarts}
                  </span>
                ) : (
                  <span className="text-muted-fg">0</span>
                )}
              </TableCell>
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
