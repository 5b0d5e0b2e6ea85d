"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";

import { Button } from "@/components/ui/button";
import {
  RANGE_LABELS,
  RANGE_PRESETS,
  timeRangeSearch,
  type RangePreset,
  type TimeRange,
} from "@/lib/time-range";

/** epoch ms → the `datetime-local` input's value in the browser's zone ("2026-01-15T12:00"). */
function toLocalInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

/**
 * Window of a page's time charts (last 15 min … 30 d, or a custom from/to), kept in the URL
 * (`range=6h` or `from=…&to=…`, epoch ms) so a link shows the same window; other parameters stay.
 */
export function TimeRangePicker({ range, nowMs }: { range: TimeRange; nowMs: number }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [custom, setCustom] = useState(range.kind === "custom");
  const [from, setFrom] = useState(() =>
    toLocalInput(range.kind === "custom" ? range.fromMs : nowMs - 3_600_000),
  );
  const [to, setTo] = useState(() => toLocalInput(range.kind === "custom" ? range.toMs : nowMs));
  const go = (next: TimeRange) => {
    const sp = new URLSearchParams(params.toString());
    for (const k of ["range", "from", "to"]) sp.delete(k);
    for (const [k, v] of new URLSearchParams(timeRangeSearch(next))) sp.set(k, v);
    const q = sp.toString();
    router.replace(q ? `${pathname}?${q}` : pathname, { scroll: false });
  };
  const fromMs = Date.parse(from);
  const toMs = Date.parse(to);
  const customValid = Number.isFinite(fromMs) && Number.isFinite(toMs) && toMs > fromMs;
  return (
    <div className="flex flex-wrap items-center gap-2 text-[13px]" data-testid="time-range-picker">
      <label className="flex items-center gap-1.5 text-muted-fg">
        Time range
        <select
          className="h-7 rounded-md border border-input bg-card px-1.5 text-foreground"
          value={custom ? "custom" : range.kind === "preset" ? range.preset : "custom"}
          onChange={(e) => {
            if (e.target.value === "custom") return setCustom(true);
            setCustom(false);
            go({ kind: "preset", preset: e.target.value as RangePreset });
          }}
        >
          {(Object.keys(RANGE_PRESETS) as RangePreset[]).map((p) => (
            <option key={p} value={p}>
              {RANGE_LABELS[p]}
            </option>
          ))}
          <option value="custom">Custom…</option>
        </select>
      </label>
      {custom && (
        <form
          className="flex flex-wrap items-center gap-1.5"
          onSubmit={(e) => {
            e.preventDefault();
            if (customValid) go({ kind: "custom", fromMs, toMs });
          }}
        >
          <label className="flex items-center gap-1 text-muted-fg">
            from
            <input
              type="datetime-local"
              className="h-7 rounded-md border border-input bg-card px-1 text-foreground"
              value={from}
              onChange={(e) => setFrom(e.target.value)}
            />
          </label>
          <label className="flex items-center gap-1 text-muted-fg">
            to
            <input
              type="datetime-local"
              className="h-7 rounded-md border border-input bg-card px-1 text-foreground"
              value={to}
              onChange={(e) => setTo(e.target.value)}
            />
          </label>
          <Button type="submit" size="sm" variant="outline" disabled={!customValid}>
            Apply
          </Button>
        </form>
      )}
    </div>
  );
}
