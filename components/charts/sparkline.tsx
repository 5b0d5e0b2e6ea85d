import { cn } from "@/lib/utils";

/** One sparkline point: epoch ms and a value (null = no reading). */
export interface SparkPoint {
  tMs: number;
  value: number | null;
}

interface SparklineProps {
  points: readonly SparkPoint[];
  /** Time range drawn (epoch ms): e.g. the last hour up to the read model's `asOf`. */
  fromMs: number;
  toMs: number;
  /** Value range (default 0–100, for percentages). */
  min?: number;
  max?: number;
  /** Readings further apart than this (ms) are not joined: the gap shows. */
  maxGapMs?: number;
  color?: string;
  height?: number;
  className?: string;
  /** Accessible summary, e.g. "GPU utilisation, last hour: 12–98%". */
  label: string;
}

/**
 * A small area sparkline in plain SVG (no axes; for glancing at the last hour of a percentage).
 * Stretches to its container's width; gaps in the data stay gaps.
 */
export function Sparkline({
  points,
  fromMs,
  toMs,
  min = 0,
  max = 100,
  maxGapMs = 150_000,
  color = "var(--chart-1)",
  height = 28,
  className,
  label,
}: SparklineProps) {
  const W = 200;
  const H = height;
  const span = Math.max(1, toMs - fromMs);
  const x = (t: number) => ((t - fromMs) / span) * W;
  const y = (v: number) =>
    H - 1 - ((Math.min(max, Math.max(min, v)) - min) / (max - min || 1)) * (H - 2);
  const runs: SparkPoint[][] = [];
  let cur: SparkPoint[] = [];
  let prevT: number | null = null;
  for (const p of points) {
    if (p.tMs < fromMs || p.tMs > toMs) continue;
    if (
      p.value === null ||
      !Number.isFinite(p.value) ||
      (prevT !== null && p.tMs - prevT > maxGapMs)
    ) {
      if (cur.length) runs.push(cur);
      cur = [];
    }
    if (p.value !== null && Number.isFinite(p.value)) cur.push(p);
    prevT = p.tMs;
  }
  if (cur.length) runs.push(cur);
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
      className={cn("block w-full", className)}
      style={{ height }}
    >
      <line
        x1={0}
        x2={W}
        y1={H - 0.5}
        y2={H - 0.5}
        stroke="var(--chart-grid)"
        strokeWidth={1}
        vectorEffect="non-scaling-stroke"
      />
      {runs.map((r, i) => {
        const line = r
          .map((p, j) => `${j === 0 ? "M" : "L"}${x(p.tMs).toFixed(1)},${y(p.value!).toFixed(1)}`)
          .join("");
        const single = r.length === 1;
        const first = r[0]!;
        const last = r[r.length - 1]!;
        return single ? (
          <circle key={i} cx={x(first.tMs)} cy={y(first.value!)} r={1.5} fill={color} />
        ) : (
          <g key={i}>
            <path
              d={`${line}L${x(last.tMs).toFixed(1)},${H}L${x(first.tMs).toFixed(1)},${H}Z`}
              fill={color}
              opacity={0.15}
            />
            <path
              d={line}
              fill="none"
              stroke={color}
              strokeWidth={1.5}
              vectorEffect="non-scaling-stroke"
              strokeLinejoin="round"
            />
          </g>
        );
      })}
    </svg>
  );
}
