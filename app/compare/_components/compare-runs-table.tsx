import { CompareExportLinks } from "@/components/runs/export-menu";
import { RelativeTime } from "@/components/runs/relative-time";
import { RunColorLink } from "@/components/runs/run-color-link";
import { StatusBadge } from "@/components/runs/status-badge";
import { Badge } from "@/components/ui/badge";
import { Card, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatTokPerS, MISSING } from "@/lib/format";
import { sweepPointLabel, type SweepScale } from "@/lib/metrics/benchmark-sweep";
import { engineLabel } from "@/lib/run-config";

import type { RunEntry } from "./compare-model";

/**
 * The compared runs, one row each with its colour: status, host, model, engine, start and (when
 * `anyBenchmark`) output tok/s at the lowest load and at the peak, with where on `scale` it was.
 */
export function CompareRunsTable({
  entries,
  scale,
  anyBenchmark,
}: {
  entries: RunEntry[];
  scale: SweepScale;
  anyBenchmark: boolean;
}) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Runs</CardTitle>
        <CompareExportLinks ids={entries.map((e) => e.run.id)} className="ml-auto" />
      </CardHeader>
      <Table>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Run</TableHead>
            <TableHead>Status</TableHead>
            <TableHead>Host</TableHead>
            <TableHead>Model</TableHead>
            <TableHead>Engine</TableHead>
            {anyBenchmark && (
              <>
                <TableHead className="text-right">At lowest load</TableHead>
                <TableHead className="text-right">Peak output</TableHead>
                <TableHead>Peak at</TableHead>
              </>
            )}
            <TableHead>Started</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {entries.map(({ run, color, headline: h }) => (
            <TableRow key={run.id}>
              <TableCell className="max-w-80">
                <RunColorLink run={run} color={color} />
              </TableCell>
              <TableCell>
                <span className="flex items-center gap-1.5">
                  <StatusBadge state={run.state} />
                  {run.archivedAt && <Badge tone="outline">archived</Badge>}
                </span>
              </TableCell>
              <TableCell>{run.host}</TableCell>
              <TableCell className="max-w-64 truncate" title={run.model ?? undefined}>
                {run.model ?? MISSING}
              </TableCell>
              <TableCell>{engineLabel(run.engine, run.engineVersion) ?? MISSING}</TableCell>
              {anyBenchmark && (
                <>
                  <TableCell
                    className="text-right"
                    title={h.lowest ? sweepPointLabel(h.lowest.x, scale) : undefined}
                  >
                    {formatTokPerS(h.lowest?.value)}
                  </TableCell>
                  <TableCell className="text-right font-semibold">
                    {formatTokPerS(h.peak?.value)}
                  </TableCell>
                  <TableCell>{h.peak ? sweepPointLabel(h.peak.x, scale) : MISSING}</TableCell>
                </>
              )}
              <TableCell className="text-muted-fg">
                <RelativeTime iso={run.startedAt} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}
