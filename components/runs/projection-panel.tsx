"use client";

import { Trophy } from "lucide-react";
import Link from "next/link";
import { useId, useState, type ReactNode } from "react";

import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/input";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatCount, formatNumber, formatTokPerS, MISSING } from "@/lib/format";
import {
  bestLevel,
  DEFAULT_PROJECTION_SAMPLES,
  defaultOutputTokens,
  formatDays,
  formatHours,
  parsePositiveNumber,
  project,
  projectionArithmetic,
  projectionLevels,
  type OutputTokensDefault,
  type Projection,
  type ProjectionLevel,
} from "@/lib/metrics/projection";
import { runPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { RunDetail } from "@/lib/view-models";

/** Text shown in the tokens box for a default (whole numbers as such, else one decimal). */
function tokensText(tokens: number): string {
  return Number.isInteger(tokens) ? formatCount(tokens) : formatNumber(tokens, 1);
}

/** The level a run projects at: the chosen key when it still exists, else the highest output tok/s. */
function chosenLevel(
  levels: readonly ProjectionLevel[],
  key: string | null,
): ProjectionLevel | null {
  return (key !== null ? levels.find((l) => l.key === key) : undefined) ?? bestLevel(levels);
}

function levelOption(l: ProjectionLevel, best: ProjectionLevel | null): string {
  return `${l.label} · ${formatTokPerS(l.outputTokPerS)}${l.key === best?.key ? " (highest)" : ""}`;
}

/** The two workload inputs (samples, output tokens per sample); values as typed, parsed by the caller. */
function WorkloadInputs({
  samples,
  onSamples,
  tokens,
  onTokens,
  tokensHint,
  children,
}: {
  samples: string;
  onSamples: (v: string) => void;
  tokens: string;
  onTokens: (v: string) => void;
  tokensHint: ReactNode;
  children?: ReactNode;
}) {
  const id = useId();
  const samplesBad = parsePositiveNumber(samples) === null;
  const tokensBad = parsePositiveNumber(tokens) === null;
  return (
    <div className="grid gap-3 sm:grid-cols-[minmax(0,10rem)_minmax(0,14rem)_minmax(0,1fr)] sm:items-start">
      <div className="grid gap-1">
        <label htmlFor={`${id}-n`} className="text-xs font-medium text-muted-fg">
          Samples (N)
        </label>
        <Input
          id={`${id}-n`}
          inputMode="numeric"
          value={samples}
          onChange={(e) => onSamples(e.target.value)}
          aria-invalid={samplesBad}
          aria-describedby={samplesBad ? `${id}-n-err` : undefined}
          className="w-full tabular-nums"
          data-testid="projection-samples"
        />
        {samplesBad && (
          <span id={`${id}-n-err`} className="text-xs text-failed">
            a positive number up to 10¹²
          </span>
        )}
      </div>
      <div className="grid gap-1">
        <label htmlFor={`${id}-t`} className="text-xs font-medium text-muted-fg">
          Output tokens per sample (mean)
        </label>
        <Input
          id={`${id}-t`}
          inputMode="decimal"
          value={tokens}
          onChange={(e) => onTokens(e.target.value)}
          aria-invalid={tokensBad}
          aria-describedby={`${id}-t-hint`}
          className="w-full tabular-nums"
          data-testid="projection-output-tokens"
        />
        <span
          id={`${id}-t-hint`}
          className={cn("text-xs", tokensBad ? "text-failed" : "text-muted-fg")}
        >
          {tokensBad ? "a positive number up to 10¹²" : tokensHint}
        </span>
      </div>
      {children}
    </div>
  );
}

function defaultHint(
  d: OutputTokensDefault | null,
  edited: boolean,
  reset: () => void,
  whose?: string,
): ReactNode {
  if (edited) {
    return (
      <button
        type="button"
        onClick={reset}
        className="rounded-sm text-left text-link underline-offset-4 hover:underline"
      >
        reset to{" "}
        {d ? `${whose ? `${whose}'s ` : "the run's "}${tokensText(d.tokens)}` : "the default"}
      </button>
    );
  }
  if (!d) return "no output length reported: type one";
  if (!whose) return d.detail;
  return (
    <>
      <span className="block truncate" title={whose}>
        from {whose}
      </span>
      {d.detail}
    </>
  );
}

function safeProject(
  samples: number | null,
  tokens: number | null,
  level: ProjectionLevel | null,
): Projection | null {
  if (samples === null || tokens === null || level === null) return null;
  return project(samples, tokens, level.outputTokPerS);
}

/**
 * "How long would N samples take?" for one benchmark run: N samples (default 100,000) × mean output
 * tokens per sample (default: the run's mean output length, see `defaultOutputTokens`) ÷ aggregate
 * output tok/s at a measured level (default: the highest) → hours and days, with the arithmetic
 * written out. Live: defaults follow the run's points until the user types.
 */
export function ProjectionPanel({ run }: { run: RunDetail }) {
  const id = useId();
  const [samples, setSamples] = useState(formatCount(DEFAULT_PROJECTION_SAMPLES));
  const [tokensTyped, setTokensTyped] = useState<string | null>(null);
  const [levelKey, setLevelKey] = useState<string | null>(null);
  const levels = projectionLevels(run.benchmarkPoints, run.config);
  const best = bestLevel(levels);
  const level = chosenLevel(levels, levelKey);
  const dflt = defaultOutputTokens(run.benchmarkPoints);
  const tokens = tokensTyped ?? (dflt ? tokensText(dflt.tokens) : "");
  const tokensValue =
    tokensTyped === null ? (dflt?.tokens ?? null) : parsePositiveNumber(tokensTyped);
  const projection = safeProject(parsePositiveNumber(samples), tokensValue, level);

  return (
    <Card className="min-w-0" data-testid="projection-panel">
      <CardHeader>
        <CardTitle>How long would N samples take?</CardTitle>
        <CardDescription className="ml-auto">
          samples × output tokens ÷ aggregate output tok/s at one measured level
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {levels.length === 0 ? (
          <p className="text-sm text-muted-fg">
            No successful point with an output tok/s yet: the projection appears with the first one.
          </p>
        ) : (
          <>
            <WorkloadInputs
              samples={samples}
              onSamples={setSamples}
              tokens={tokens}
              onTokens={setTokensTyped}
              tokensHint={defaultHint(dflt, tokensTyped !== null, () => setTokensTyped(null))}
            >
              <div className="grid gap-1">
                <label htmlFor={`${id}-level`} className="text-xs font-medium text-muted-fg">
                  At measured level
                </label>
                <Select
                  id={`${id}-level`}
                  value={level?.key ?? ""}
                  onChange={(e) => setLevelKey(e.target.value)}
                  className="w-full max-w-md tabular-nums"
                  data-testid="projection-level"
                >
                  {levels.map((l) => (
                    <option key={l.key} value={l.key}>
                      {levelOption(l, best)}
                    </option>
                  ))}
                </Select>
              </div>
            </WorkloadInputs>
            <div
              data-testid="projection-result"
              className="grid gap-1 rounded-md border border-border bg-muted/40 px-4 py-3"
            >
              {projection ? (
                <>
                  <div className="flex flex-wrap items-baseline gap-x-3 tabular-nums">
                    <span
                      className="text-2xl font-semibold tracking-tight text-link"
                      data-testid="projection-hours"
                    >
                      {formatHours(projection.hours)}
                    </span>
                    <span className="text-sm text-muted-fg">= {formatDays(projection.days)}</span>
                  </div>
                  <p
                    className="text-xs text-muted-fg tabular-nums"
                    data-testid="projection-arithmetic"
                  >
                    {projectionArithmetic(projection)}
                  </p>
                </>
              ) : (
                <span className="text-sm text-muted-fg">
                  Enter the samples and the output tokens per sample.
                </span>
              )}
            </div>
          </>
        )}
      </CardContent>
    </Card>
  );
}

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
                  <span className="flex min-w-0 items-center gap-2">
                    <span
                      aria-hidden
                      className="size-2.5 shrink-0 rounded-full"
                      style={{ background: color }}
                    />
                    <Link
                      href={runPath(run.id)}
                      className="truncate rounded-sm font-medium hover:underline"
                      title={run.name}
                    >
                      {run.name}
                    </Link>
                  </span>
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
