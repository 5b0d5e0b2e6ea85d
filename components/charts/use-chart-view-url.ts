"use client";

import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import {
  parseChartView,
  patchChartViewSearch,
  type ChartView,
  type ChartViewPatch,
} from "@/lib/metrics/chart-view-url";

/**
 * The metric-chart view kept in the page URL (log-y keys, step zoom, smoothing; see
 * lib/metrics/chart-view-url.ts), so a reload or a shared link shows the same charts. `update`
 * replaces the current history entry (no entry per click) through `window.history.replaceState`,
 * which Next's router picks up (useSearchParams re-renders) without a server round trip; other
 * parameters stay. `update` is stable and reads the URL at call time, so two quick changes both land.
 */
export function useChartViewUrl(): {
  view: ChartView;
  update: (patch: ChartViewPatch) => void;
  /** Turns a chart's log-y on or off, from the URL of the moment (two quick clicks both land). */
  toggleLogKey: (key: string, on: boolean) => void;
} {
  const params = useSearchParams();
  const query = params.toString();
  const view = useMemo(() => parseChartView(new URLSearchParams(query)), [query]);
  const update = useCallback((patch: ChartViewPatch) => {
    const q = patchChartViewSearch(window.location.search, patch);
    const url = `${window.location.pathname}${q ? `?${q}` : ""}${window.location.hash}`;
    window.history.replaceState(null, "", url);
  }, []);
  const toggleLogKey = useCallback(
    (key: string, on: boolean) => {
      const next = new Set(parseChartView(new URLSearchParams(window.location.search)).logKeys);
      if (on) next.add(key);
      else next.delete(key);
      update({ logKeys: next });
    },
    [update],
  );
  return { view, update, toggleLogKey };
}

/**
 * A smoothing weight kept in the URL (`smooth=0.9`; `fallback` when absent or bad, and choosing
 * `fallback` takes the parameter out). The value moves at once; the URL follows 250 ms after the
 * slider rests (no replaceState per pixel dragged).
 */
export function useUrlSmoothing(fallback: number): [number, (next: number) => void] {
  const { view, update } = useChartViewUrl();
  const [smoothing, setNow] = useState(view.smoothing ?? fallback);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const set = useCallback(
    (next: number) => {
      setNow(next);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => update({ smoothing: next === fallback ? null : next }), 250);
    },
    [update, fallback],
  );
  return [smoothing, set];
}
