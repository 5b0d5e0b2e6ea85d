import { z } from "zod";

import { metricKey } from "@/lib/protocol/primitives";

import { MAX_SMOOTHING } from "./smoothing";

/**
 * URL parameter names of a metric-chart view. `fromStep`/`toStep` (not `from`/`to`: those are the
 * time-range window's epoch ms in lib/time-range.ts).
 */
export const CHART_VIEW_PARAMS = {
  logY: "logy",
  fromStep: "fromStep",
  toStep: "toStep",
  smooth: "smooth",
} as const;

/** A zoomed step range, both ends included (steps, not time). */
export interface StepRange {
  fromStep: number;
  toStep: number;
}

/** The chart view a URL carries; a part that is missing or invalid is absent (`null` zoom, no keys). */
export interface ChartView {
  /** Metric keys whose chart has a log₁₀ y axis. */
  logKeys: ReadonlySet<string>;
  /** Step range every chart is zoomed to, or null for the whole run. */
  zoom: StepRange | null;
  /** EMA smoothing weight in [0, MAX_SMOOTHING], or null when the URL names none. */
  smoothing: number | null;
}

const MAX_LOG_KEYS = 500;

/** "loss,grad_norm" → keys; a comma or % inside a key is written %2C / %25 (see logKeysParam). */
const logKeysSchema = z
  .string()
  .max(50_000)
  .transform((s, ctx) => {
    const keys: string[] = [];
    for (const part of s.split(",")) {
      if (part === "") continue;
      try {
        keys.push(decodeURIComponent(part));
      } catch {
        ctx.addIssue({ code: "custom", message: `bad escape in log-y key "${part}"` });
        return z.NEVER;
      }
    }
    return keys;
  })
  .pipe(z.array(metricKey).max(MAX_LOG_KEYS));

const stepSchema = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const zoomSchema = z
  .object({ fromStep: stepSchema, toStep: stepSchema })
  .refine((r) => r.fromStep <= r.toStep, { message: "fromStep must not be above toStep" });

const smoothSchema = z.coerce.number().min(0).max(MAX_SMOOTHING);

/** The text of one parameter, or undefined when absent or blank. */
function text(params: URLSearchParams, name: string): string | undefined {
  const v = params.get(name);
  return v === null || v.trim() === "" ? undefined : v;
}

/**
 * Reads the chart view from URL parameters (`logy=loss,grad_norm`, `fromStep=100&toStep=900`,
 * `smooth=0.6`). Each part is validated on its own with zod and ignored when bad (a zoom needs both
 * ends, from ≤ to, whole steps ≥ 0; smoothing within [0, 0.99]): a page never fails on its URL.
 */
export function parseChartView(params: URLSearchParams): ChartView {
  const log = logKeysSchema.safeParse(text(params, CHART_VIEW_PARAMS.logY) ?? "");
  const from = text(params, CHART_VIEW_PARAMS.fromStep);
  const to = text(params, CHART_VIEW_PARAMS.toStep);
  const zoom =
    from !== undefined && to !== undefined
      ? zoomSchema.safeParse({ fromStep: from, toStep: to })
      : null;
  const smoothText = text(params, CHART_VIEW_PARAMS.smooth);
  const smooth = smoothText === undefined ? null : smoothSchema.safeParse(smoothText);
  return {
    logKeys: new Set(log.success ? log.data : []),
    zoom: zoom?.success ? zoom.data : null,
    smoothing: smooth?.success ? smooth.data : null,
  };
}

/** A change to the view: a field left out stays as the URL has it; null removes it. */
export interface ChartViewPatch {
  logKeys?: ReadonlySet<string> | null;
  zoom?: StepRange | null;
  smoothing?: number | null;
}

/** The `logy` value of keys, sorted so one view gives one URL ("grad_norm,loss"). */
export function logKeysParam(keys: Iterable<string>): string {
  return [...keys]
    .sort()
    .map((k) => k.replaceAll("%", "%25").replaceAll(",", "%2C"))
    .join(",");
}

/**
 * The query string (without "?") after applying `patch` to `search` ("?range=6h&logy=loss"…):
 * every other parameter stays as it was; an empty key set, a null zoom or a null smoothing
 * removes its parameters, so the default view keeps the URL plain.
 */
export function patchChartViewSearch(search: string, patch: ChartViewPatch): string {
  const sp = new URLSearchParams(search);
  if (patch.logKeys !== undefined) {
    if (patch.logKeys && patch.logKeys.size > 0)
      sp.set(CHART_VIEW_PARAMS.logY, logKeysParam(patch.logKeys));
    else sp.delete(CHART_VIEW_PARAMS.logY);
  }
  if (patch.zoom !== undefined) {
    if (patch.zoom) {
      sp.set(CHART_VIEW_PARAMS.fromStep, String(Math.floor(patch.zoom.fromStep)));
      sp.set(CHART_VIEW_PARAMS.toStep, String(Math.ceil(patch.zoom.toStep)));
    } else {
      sp.delete(CHART_VIEW_PARAMS.fromStep);
      sp.delete(CHART_VIEW_PARAMS.toStep);
    }
  }
  if (patch.smoothing !== undefined) {
    if (patch.smoothing === null) sp.delete(CHART_VIEW_PARAMS.smooth);
    else sp.set(CHART_VIEW_PARAMS.smooth, String(Math.round(patch.smoothing * 100) / 100));
  }
  // Commas stay readable ("logy=grad_norm,loss", "ids=1,2"); a comma inside a key is %252C.
  return sp.toString().replaceAll("%2C", ",");
}
