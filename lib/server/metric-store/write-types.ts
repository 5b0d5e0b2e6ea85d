import type { z } from "zod";

import type { PointColumns } from "@/lib/metrics/tiers";
import type { metricPoint } from "@/lib/protocol";

/** Shapes shared by the metric writers (series.ts, tiers.ts), kept apart so neither imports the other. */

/** SQL text and parameter values of one part of a statement (parameters numbered from the `first` it was given). */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/** One run's points of a batch (distinct by key and step). */
export interface RunPoints {
  runId: number;
  points: PointColumns;
}

/** A key whose top tier grows from `fromBits` to `toBits` with this batch (its tiers in between must be filled first). */
export interface TierPromotion {
  runId: number;
  key: string;
  fromBits: number;
  toBits: number;
}

/** The points of one `run.metrics` frame, for run `runId` (the frame's array as validated, not copied). */
export interface MetricFrame {
  runId: number;
  points: ReadonlyArray<z.infer<typeof metricPoint>>;
}
