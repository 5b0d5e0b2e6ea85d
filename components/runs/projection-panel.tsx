"use client";

import { useId, useState } from "react";

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/input";
import { formatCount } from "@/lib/format";
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
