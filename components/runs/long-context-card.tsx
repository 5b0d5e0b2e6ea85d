import { ContextLengthChart, type ContextSeries } from "@/components/charts/context-length-chart";
import { ChartPlaceholder } from "@/components/charts/sweep-chart-parts";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

const TEXT = {
  ttft: { title: "TTFT by context length", description: "time to first token · median and p99" },
  decode: {
    title: "Decode tok/s by context length",
    description: "per request · 1000 / median TPOT",
  },
} as const;

/**
 * One long-context chart in its card: "TTFT by context length" or "Decode tok/s by context length"
 * (points with `scenario: "long-context"`; see lib/metrics/long-context.ts). `note` is a line under
 * the chart (e.g. failed points left out).
 */
export function LongContextCard({
  metric,
  series,
  height = 260,
  note,
  legend,
  showP99 = true,
}: {
  metric: "ttft" | "decode";
  series: ContextSeries[];
  height?: number;
  note?: string;
  /** Name the series in the legend even when there is one. */
  legend?: boolean;
  /** TTFT: draw p99 too (default); the compare page shows medians only. */
  showP99?: boolean;
}) {
  const text = TEXT[metric];
  const description =
    metric === "ttft" && !showP99 ? "time to first token · median" : text.description;
  const empty = series.every((s) => s.data.length === 0);
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>{text.title}</CardTitle>
        <CardDescription className="ml-auto">{description}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-2">
        {empty ? (
          <ChartPlaceholder height={height + 28}>
            No successful long-context point to plot yet
          </ChartPlaceholder>
        ) : (
          <ContextLengthChart
            metric={metric}
            series={series}
            height={height}
            legend={legend}
            showP99={showP99}
          />
        )}
        {note && <p className="text-xs text-muted-fg">{note}</p>}
      </CardContent>
    </Card>
  );
}
