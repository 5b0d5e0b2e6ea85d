"use client";

import { formatNumber } from "@/lib/format";
import { MAX_SMOOTHING } from "@/lib/metrics/smoothing";

/** The "Smoothing" slider of a page's metric charts: an EMA weight in [0, 0.99], 0 shown as "off". */
export function SmoothingSlider({
  value,
  onChange,
}: {
  value: number;
  onChange: (next: number) => void;
}) {
  const words = value === 0 ? "off" : formatNumber(value, 2);
  return (
    <label className="flex items-center gap-2 text-xs text-muted-fg">
      Smoothing
      <input
        type="range"
        min={0}
        max={MAX_SMOOTHING}
        step={0.01}
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
        className="w-36 accent-primary"
        data-testid="smoothing-slider"
        aria-valuetext={words}
      />
      <span className="w-8 font-medium text-foreground tabular-nums" data-testid="smoothing-value">
        {words}
      </span>
    </label>
  );
}
