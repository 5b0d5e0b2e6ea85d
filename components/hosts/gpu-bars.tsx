import { formatPct } from "@/components/pipelines/units";
import { cn } from "@/lib/utils";
import type { GpuView } from "@/lib/view-models/hosts";

/** Colour of a utilisation level: idle GPUs read grey, busy ones blue. */
function utilColor(pct: number | null): string {
  if (pct === null) return "bg-muted";
  return pct < 5 ? "bg-neutral/50" : "bg-running";
}

/** One small vertical bar per GPU, filled to its utilisation (title: index, util, memory). */
export function GpuBars({
  gpus,
  className,
  height = 18,
}: {
  gpus: readonly GpuView[];
  className?: string;
  height?: number;
}) {
  if (gpus.length === 0) return null;
  return (
    <span
      className={cn("inline-flex items-end gap-0.5", className)}
      role="img"
      aria-label={`GPU utilisation: ${gpus.map((g) => `GPU ${g.index} ${formatPct(g.utilPct)}`).join(", ")}`}
    >
      {gpus.map((g) => (
        <span
          key={g.index}
          className="relative w-1.5 overflow-hidden rounded-[2px] bg-muted"
          style={{ height }}
          title={`GPU ${g.index}: ${formatPct(g.utilPct)} util`}
        >
          <span
            className={cn("absolute inset-x-0 bottom-0", utilColor(g.utilPct))}
            style={{ height: `${Math.max(g.utilPct ?? 0, g.utilPct ? 6 : 0)}%` }}
          />
        </span>
      ))}
    </span>
  );
}

/** A horizontal meter with its value: used for GPU util, memory, RAM and disk. */
export function Meter({
  pct,
  className,
  tone = "running",
}: {
  pct: number | null;
  className?: string;
  tone?: "running" | "stale" | "failed";
}) {
  const fill = tone === "failed" ? "bg-failed" : tone === "stale" ? "bg-stale" : "bg-running";
  return (
    <span
      className={cn("relative block h-1.5 w-full overflow-hidden rounded-full bg-muted", className)}
      aria-hidden
    >
      {pct !== null && (
        <span
          className={cn("absolute inset-y-0 left-0 rounded-full", fill)}
          style={{ width: `${Math.min(100, Math.max(0, pct))}%` }}
        />
      )}
    </span>
  );
}
