"use client";

import { CircleCheck, CircleX, TriangleAlert } from "lucide-react";

import { MISSING } from "@/lib/format";
import { isFailedPoint } from "@/lib/metrics/benchmark-sweep";
import type { BenchmarkPointView } from "@/lib/view-models";

/** The muted missing-value mark. */
export function Missing() {
  return <span className="text-muted-fg">{MISSING}</span>;
}

/** A numeric cell: the missing mark for null, amber for a non-finite value, else `format(v)`. */
export function cell(v: number | null, format: (v: number | null) => string) {
  if (v === null) return <Missing />;
  if (!Number.isFinite(v))
    return (
      <span className="text-stale" title="Non-finite value reported by the benchmark">
        {format(v)}
      </span>
    );
  return format(v);
}

/** OK / FAILED / partially failed marker for one point (icon plus label, never colour alone). */
export function PointResult({ point }: { point: BenchmarkPointView }) {
  if (isFailedPoint(point)) {
    return (
      <span
        className="inline-flex items-center gap-1 font-semibold text-failed"
        title="No request completed: this point is not plotted"
      >
        <CircleX aria-hidden className="size-3.5" />
        FAILED
      </span>
    );
  }
  if (point.failed !== null && point.failed > 0) {
    return (
      <span
        className="inline-flex items-center gap-1 text-stale"
        title={`${point.failed} request(s) failed`}
      >
        <TriangleAlert aria-hidden className="size-3.5" />
        partial
      </span>
    );
  }
  return (
    <span className="inline-flex items-center gap-1 text-muted-fg">
      <CircleCheck aria-hidden className="size-3.5 text-succeeded" />
      ok
    </span>
  );
}
