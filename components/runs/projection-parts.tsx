"use client";

import { useId, type ReactNode } from "react";

import { Input } from "@/components/ui/input";
import { formatCount, formatNumber, formatTokPerS } from "@/lib/format";
import {
  bestLevel,
  parsePositiveNumber,
  project,
  type OutputTokensDefault,
  type Projection,
  type ProjectionLevel,
} from "@/lib/metrics/projection";
import { cn } from "@/lib/utils";

/** Text shown in the tokens box for a default (whole numbers as such, else one decimal). */
export function tokensText(tokens: number): string {
  return Number.isInteger(tokens) ? formatCount(tokens) : formatNumber(tokens, 1);
}

/** The level a run projects at: the chosen key when it still exists, else the highest output tok/s. */
export function chosenLevel(
  levels: readonly ProjectionLevel[],
  key: string | null,
): ProjectionLevel | null {
  return (key !== null ? levels.find((l) => l.key === key) : undefined) ?? bestLevel(levels);
}

/** A level's menu entry: its label and output tok/s, "(highest)" on `best`. */
export function levelOption(l: ProjectionLevel, best: ProjectionLevel | null): string {
  return `${l.label} · ${formatTokPerS(l.outputTokPerS)}${l.key === best?.key ? " (highest)" : ""}`;
}

/** The two workload inputs (samples, output tokens per sample); values as typed, parsed by the caller. */
export function WorkloadInputs({
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

/**
 * The note under the output-tokens box: where the default comes from (`whose` run on the compare
 * page), or a button back to it once `edited`.
 */
export function defaultHint(
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

/** The projection of `samples` × `tokens` at `level`, or null while an input is missing or invalid. */
export function safeProject(
  samples: number | null,
  tokens: number | null,
  level: ProjectionLevel | null,
): Projection | null {
  if (samples === null || tokens === null || level === null) return null;
  return project(samples, tokens, level.outputTokPerS);
}
