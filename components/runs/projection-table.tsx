"use client";

import { Trophy } from "lucide-react";
import { useState } from "react";

import { RunColorLink } from "@/components/runs/run-color-link";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/input";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatCount, formatTokPerS, MISSING } from "@/lib/format";
import {
  bestLevel,
  DEFAULT_PROJECTION_SAMPLES,
  defaultOutputTokens,
  formatDays,
  formatHours,
  parsePositiveNumber,
  projectionArithmetic,
  projectionLevels,
} from "@/lib/metrics/projection";
import type { RunDetail } from "@/lib/view-models";

import {
  chosenLevel,
  defaultHint,
  levelOption,
  safeProject,
  tokensText,
  WorkloadInputs,
} from "./projection-parts";

/** One run of {@link ProjectionTable}, with its legend colour. */
export interface ProjectionRunEntry {
  run: RunDetail;
  color: string;
}

/**
 * The projection for several runs on one workload (compare page): shared N samples and output
 * tokens per sample (default: the first run's mean output length that has one), one row per run
 * with its own level (default: its highest output tok/s), the fastest row marked.
 */
export function ProjectionTable({ entries }: { entries: ProjectionRunEntry[] }) {
  const [samples, setSamples] = useState(formatCount(DEFAULT_PROJECTION_SAMPLES));
  const [tokensTyped, setTokensTyped] = useState<string | null>(null);
  const [levelKeys, setLevelKeys] = useState<Record<number, string>>({});
  const rows = entries.map((e) => {
    const levels = projectionLevels(e.run.benchmarkPoints, e.run.config);
    return {
      ...e,
      levels,
      best: bestLevel(levels),
      level: chosenLevel(levels, levelKeys[e.run.id] ?? null),
      dflt: defaultOutputTokens(e.run.benchmarkPoints),
    };
  });
  const source = rows.find((r) => r.dflt !== null);
  const dflt = source?.dflt ?? null;
  const tokens = tokensTyped ?? (dflt ? tokensText(dflt.tokens) : "");
  const tokensValue =
    tokensTyped === null ? (dflt?.tokens ?? null) : parsePositiveNumber(tokensTyped);
  const samplesValue = parsePositiveNumber(samples);
  const others = rows.filter(
    (r) => r !== source && r.dflt !== null && Math.abs(r.dflt.tokens - (dflt?.tokens ?? 0)) > 0.05,
  );
  const projected = rows.map((r) => ({
    ...r,
    projection: safeProject(samplesValue, tokensValue, r.level),
  }));
  const fastest = projected.reduce<number | null>(
    (best, r) =>
      r.projection && (best === null || r.projection.seconds < best) ? r.projection.seconds : best,
    null,
  );
  const hint = (
    <>
      {defaultHint(dflt, tokensTyped !== null, () => setTokensTyped(null), source?.run.name)}
      {tokensTyped === null && others.length > 0 && (
        <span className="block">
          {others.map((r) => `${r.run.name}: ${tokensText(r.dflt!.tokens)}`).join(" · ")} (one
          workload for every row)
        </span>
      )}
    </>
  );

  return (
    <Card className="min-w-0" data-testid="projection-table">
      <CardHeader>
        <CardTitle>How long would N samples take on each setup?</CardTitle>
        <CardDescription className="ml-auto">
          samples × output tokens ÷ aggregate output tok/s at the chosen level
        </CardDescription>
      </CardHeader>
      <CardContent className="border-b border-border">
        <WorkloadInputs
          samples={samples}
          onSamples={setSamples}
          tokens={tokens}
          onTokens={setTokensTyped}
          tokensHint={hint}
        />
      </CardContent>
      <Table>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Run</TableHead>
            <TableHead>At measured level</TableHead>
            <TableHead className="text-right">Output tok/s</TableHead>
            <TableHead className="text-right">Time</TableHead>
            <TableHead className="text-right">Days</TableHead>
            <TableHead>Arithmetic</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {projected.map(({ run, color, levels, best, level, projection }) => {
            const isFastest =
              projection !== null &&
              projection.seconds === fastest &&
              projected.filter((r) => r.projection).length > 1;
            return (
              <TableRow key={run.id} data-testid="projection-row" data-run-id={run.id}>
                <TableCell className="max-w-64">
                  <RunColorLink run={run} color={color} />
                </TableCell>
                <TableCell>
                  {levels.length === 0 ? (
                    <span className="text-muted-fg">no measured output tok/s</span>
                  ) : (
                    <Select
                      aria-label={`Level for ${run.name}`}
                      value={level?.key ?? ""}
                      onChange={(e) =>
                        setLevelKeys((prev) => ({ ...prev, [run.id]: e.target.value }))
                      }
                      className="w-60 tabular-nums"
                    >
                      {levels.map((l) => (
                        <option key={l.key} value={l.key}>
                          {levelOption(l, best)}
                        </option>
                      ))}
                    </Select>
                  )}
                </TableCell>
                <TableCell className="text-right">
                  {level ? formatTokPerS(level.outputTokPerS) : MISSING}
                </TableCell>
                <TableCell className="text-right">
                  <span className="inline-flex items-center gap-1.5">
                    {isFastest && (
                      <Badge tone="succeeded" title="Shortest time of these runs">
                        <Trophy aria-hidden />
                        fastest
                      </Badge>
                    )}
                    <span className="font-semibold" data-testid="projection-hours">
                      {projection ? formatHours(projection.hours) : MISSING}
                    </span>
                  </span>
                </TableCell>
                <TableCell className="text-right">
                  {projection ? formatDays(projection.days) : MISSING}
                </TableCell>
                <TableCell
                  className="text-xs whitespace-nowrap text-muted-fg"
                  data-testid="projection-arithmetic"
                >
                  {projection ? projectionArithmetic(projection) : MISSING}
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
    </Card>
  );
}
