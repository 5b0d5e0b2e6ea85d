"use client";

import { createContext, useContext, type ReactNode } from "react";

import {
  pickLatencyUnit,
  type LatencyMetric,
  type LatencyUnit,
  type LatencyUnits,
} from "@/lib/latency-unit";

const LatencyUnitContext = createContext<LatencyUnits | null>(null);

/**
 * Sets the latency unit of each metric on a page (see lib/latency-unit.ts) for every chart, table
 * and figure inside; `null` (a page without latencies of its own) lets each widget pick from its data.
 */
export function LatencyUnitProvider({
  units,
  children,
}: {
  units: LatencyUnits | null;
  children: ReactNode;
}) {
  return <LatencyUnitContext.Provider value={units}>{children}</LatencyUnitContext.Provider>;
}

/**
 * The page's unit for `metric`; outside a {@link LatencyUnitProvider} (a widget used alone, e.g. on
 * /serving) the unit picked from the widget's own `valuesMs` of that metric.
 */
export function useLatencyUnit(
  metric: LatencyMetric,
  valuesMs: Iterable<number | null | undefined>,
): LatencyUnit {
  return useContext(LatencyUnitContext)?.[metric] ?? pickLatencyUnit(valuesMs);
}
