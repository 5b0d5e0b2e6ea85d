"use client";

import { createContext, useContext, type ReactNode } from "react";
import { pickLatencyUnit, type LatencyUnit } from "@/lib/latency-unit";

const LatencyUnitContext = createContext<LatencyUnit | null>(null);

/**
 * Sets the one latency unit of a page (see lib/latency-unit.ts) for every chart, table and figure
 * inside; `null` (a page without latencies of its own) lets each widget pick from its data.
 */
export function LatencyUnitProvider({ unit, children }: { unit: LatencyUnit | null; children: ReactNode }) {
  return <LatencyUnitContext.Provider value={unit}>{children}</LatencyUnitContext.Provider>;
}

/**
 * The page's latency unit; outside a {@link LatencyUnitProvider} (a widget used alone, e.g. on
 * /compare or /serving) the unit picked from the widget's own `valuesMs`.
 */
export function useLatencyUnit(valuesMs: Iterable<number | null | undefined>): LatencyUnit {
  return useContext(LatencyUnitContext) ?? pickLatencyUnit(valuesMs);
}
