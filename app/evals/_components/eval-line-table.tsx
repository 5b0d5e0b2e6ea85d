"use client";

import Link from "next/link";

import { seriesColor } from "@/components/charts/sweep-chart-parts";
import { BaselineDeltas } from "@/components/evals/eval-figures";
import { checkpointName, draftSettingsLabel, formatTau } from "@/components/evals/format";
import { comparableBaselines, compareWithBaselines } from "@/components/evals/reference";
import { Badge } from "@/components/ui/badge";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatCount } from "@/lib/format";
import { runPath } from "@/lib/paths";
import type { BaselineView, TauLineView } from "@/lib/view-models/evals";

import { latestPoint } from "./tau-lines";

/**
 * The τ lines as a table: run, scorer, checkpoint count, latest checkpoint, latest and best τ,
 * and the latest τ against the comparable `baselines` (of `category` when one is chosen).
 */
export function LineTable({
  lines,
  baselines,
  category,
}: {
  lines: TauLineView[];
  baselines: BaselineView[];
  category: string | null;
}) {
  // Same rule as the run page: the baselines of the line's datasets, else the dataset-less ones,
  // each compared with the τ of its own category (never an all-category τ with a coding reference).
  const refs = lines.map((l) => {
    const latest = latestPoint(l);
    return latest
      ? compareWithBaselines(
          comparableBaselines(baselines, l.datasets),
          latest.tau,
          l.latestCategories,
          category,
        )
      : [];
  });
  const anyRef = refs.some((r) => r.length > 0);
  const first = refs.find((r) => r.length > 0);
  const sameSingle =
    first?.length === 1 &&
    refs.every(
      (r) =>
        r.length === 0 ||
        (r.length === 1 &&
          r[0]!.baseline.id === first[0]!.baseline.id &&
          r[0]!.category === first[0]!.category),
    )
      ? first[0]!
      : null;
  return (
    <Table>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Run</TableHead>
          <TableHead>Scored by</TableHead>
          <TableHead className="text-right">Checkpoints</TableHead>
          <TableHead>Latest</TableHead>
          <TableHead className="text-right">Latest τ</TableHead>
          <TableHead className="text-right">Best τ</TableHead>
          {anyRef && (
            <TableHead>
              {sameSingle
                ? `${sameSingle.category ? `${sameSingle.category} τ ` : ""}vs ${sameSingle.baseline.name}`
                : "vs baselines"}
            </TableHead>
          )}
        </TableRow>
      </TableHeader>
      <TableBody>
        {lines.map((l, i) => {
          const latest = latestPoint(l);
          const best = Math.max(...l.points.map((p) => p.tau));
          const others = l.evalRuns.filter((r) => r.id !== l.run.id);
          const lineRefs = refs[i]!;
          return (
            <TableRow key={l.key}>
              <TableCell className="max-w-96">
                <span className="flex min-w-0 items-center gap-1.5">
                  <span
                    aria-hidden
                    className="size-2 shrink-0 rounded-full"
                    style={{ background: seriesColor(i) }}
                  />
                  <Link
                    href={runPath(l.run.id)}
                    className="truncate font-medium hover:underline"
                    title={l.run.name}
                  >
                    {l.run.name}
                  </Link>
                  <Badge tone="outline">{l.run.kind}</Badge>
                </span>
                {l.splitByDraft && (
                  <span
                    className="block truncate pl-3.5 text-xs text-muted-fg"
                    title="this run was scored with several draft settings: one line each, never summed"
                  >
                    draft: {draftSettingsLabel(l.draft.settings)}
                  </span>
                )}
              </TableCell>
              <TableCell
                className="max-w-72 truncate text-muted-fg"
                title={others.map((r) => r.name).join(", ") || undefined}
              >
                {others.length === 0
                  ? "itself"
                  : others.map((r, j) => (
                      <span key={r.id}>
                        {j > 0 && ", "}
                        <Link href={runPath(r.id)} className="hover:underline">
                          {r.name}
                        </Link>
                      </span>
                    ))}
              </TableCell>
              <TableCell className="text-right">{formatCount(l.points.length)}</TableCell>
              <TableCell
                className="max-w-40 truncate text-muted-fg"
                title={latest?.uri ?? undefined}
              >
                {latest ? checkpointName(latest) : "—"}
              </TableCell>
              <TableCell className="text-right font-medium">{formatTau(latest?.tau)}</TableCell>
              <TableCell className="text-right">{formatTau(best)}</TableCell>
              {anyRef && (
                <TableCell className="max-w-56">
                  {lineRefs.length > 0 ? (
                    <BaselineDeltas comparisons={lineRefs} compact names={sameSingle === null} />
                  ) : (
                    <span className="text-muted-fg">—</span>
                  )}
                </TableCell>
              )}
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
