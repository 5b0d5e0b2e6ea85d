import { ReferenceLine } from "recharts";

import type { PlacedAnnotation } from "@/lib/metrics/annotations";

const STROKE: Record<PlacedAnnotation["tone"], string> = {
  info: "var(--chart-axis)",
  warn: "var(--status-stale)",
  failed: "var(--status-failed)",
};
/** Short label drawn on the line (checkpoints stay unlabelled: there may be dozens). */
const MARK: Record<PlacedAnnotation["kind"], string> = { checkpoint: "", event: "!", plan: "plan" };

/**
 * Vertical lines for a step chart's annotations inside [xMin, xMax] (as recharts children, placed
 * in a chart's children list): checkpoints dashed grey, events amber or red with "!", plan
 * decisions solid with "plan"; the caller lists their texts.
 */
export function annotationLines(placed: readonly PlacedAnnotation[], xMin: number, xMax: number) {
  return placed
    .filter((a) => a.x >= xMin && a.x <= xMax)
    .map((a, i) => (
      <ReferenceLine
        key={`ann-${i}`}
        x={a.x}
        className={`annotation annotation-${a.kind}`}
        stroke={a.kind === "plan" ? "var(--link)" : STROKE[a.tone]}
        strokeDasharray={a.kind === "checkpoint" ? "2 3" : a.kind === "event" ? "4 2" : undefined}
        strokeOpacity={a.kind === "checkpoint" ? 0.6 : 0.9}
        ifOverflow="hidden"
        label={
          MARK[a.kind]
            ? {
                value: MARK[a.kind],
                position: "insideTopRight",
                fill: a.kind === "plan" ? "var(--link)" : STROKE[a.tone],
                fontSize: 10,
              }
            : undefined
        }
      />
    ));
}
