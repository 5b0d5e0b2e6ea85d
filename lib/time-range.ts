import { z } from "zod";

/** Preset windows ending now, by URL value, in ms. */
export const RANGE_PRESETS = {
  "15m": 15 * 60_000,
  "1h": 3_600_000,
  "6h": 6 * 3_600_000,
  "24h": 24 * 3_600_000,
  "7d": 7 * 86_400_000,
  "30d": 30 * 86_400_000,
} as const;
/** A preset's URL value ("15m" … "30d"). */
export type RangePreset = keyof typeof RANGE_PRESETS;
/** Labels of the presets, in menu order. */
export const RANGE_LABELS: Record<RangePreset, string> = {
  "15m": "Last 15 min",
  "1h": "Last 1 h",
  "6h": "Last 6 h",
  "24h": "Last 24 h",
  "7d": "Last 7 d",
  "30d": "Last 30 d",
};

/** The default window of host and serving charts: the last hour ("1h", written as no parameter). */
export const DEFAULT_RANGE: TimeRange = { kind: "preset", preset: "1h" };
/** Longest custom window: 90 days. */
export const MAX_RANGE_MS = 90 * 86_400_000;

/** A chosen window: a preset ending now, or a fixed custom span (epoch ms). */
export type TimeRange =
  { kind: "preset"; preset: RangePreset } | { kind: "custom"; fromMs: number; toMs: number };

const epochMs = z.coerce.number().int().min(0).max(8.64e15);

/**
 * URL parameters of a window: `range=6h`, or `from=<epoch ms>&to=<epoch ms>` (to after from,
 * at most 90 days). Issues name the parameter.
 */
export const timeRangeParams = z
  .object({
    range: z.enum(Object.keys(RANGE_PRESETS) as [RangePreset, ...RangePreset[]]).optional(),
    from: epochMs.optional(),
    to: epochMs.optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.from === undefined) !== (p.to === undefined))
      ctx.addIssue({
        code: "custom",
        message: "from and to go together (epoch ms)",
        path: ["from"],
      });
    if (
      p.from !== undefined &&
      p.to !== undefined &&
      (p.to <= p.from || p.to - p.from > MAX_RANGE_MS)
    )
      ctx.addIssue({
        code: "custom",
        message: "to must be after from, at most 90 days later",
        path: ["to"],
      });
  })
  .transform((p): TimeRange =>
    p.from !== undefined && p.to !== undefined
      ? { kind: "custom", fromMs: p.from, toMs: p.to }
      : p.range
        ? { kind: "preset", preset: p.range }
        : DEFAULT_RANGE,
  );

/** Reads a window from URL parameters; anything invalid falls back to the default (pages never fail on a bad URL). */
export function parseTimeRange(params: Record<string, string | string[] | undefined>): TimeRange {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const parsed = timeRangeParams.safeParse({
    range: one(params.range),
    from: one(params.from),
    to: one(params.to),
  });
  return parsed.success ? parsed.data : DEFAULT_RANGE;
}

/** The window's bounds in epoch ms, a preset ending at `nowMs`. */
export function resolveTimeRange(
  range: TimeRange,
  nowMs: number,
): { fromMs: number; toMs: number } {
  return range.kind === "custom"
    ? { fromMs: range.fromMs, toMs: range.toMs }
    : { fromMs: nowMs - RANGE_PRESETS[range.preset], toMs: nowMs };
}

/** URL parameters of a window ("range=6h", "from=…&to=…"); the default gives "" so plain URLs stay plain. */
export function timeRangeSearch(range: TimeRange): string {
  if (range.kind === "custom") return `from=${range.fromMs}&to=${range.toMs}`;
  return range.preset === "1h" ? "" : `range=${range.preset}`;
}

/** Short words for a window in titles ("last 6 h", "custom range"). */
export function timeRangeWords(range: TimeRange): string {
  return range.kind === "custom" ? "selected range" : RANGE_LABELS[range.preset].toLowerCase();
}
