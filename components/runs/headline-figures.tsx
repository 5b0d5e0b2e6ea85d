import type { ReactNode } from "react";

import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { formatNumber, formatTokPerS } from "@/lib/format";
import {
  decodeAtPeakNote,
  sweepPointLabel,
  type Headline,
  type SweepScale,
} from "@/lib/metrics/benchmark-sweep";
import type { PointTally } from "@/lib/metrics/long-context";
import { cn } from "@/lib/utils";

/** One series' figures with its legend identity. */
export interface HeadlineItem {
  key: string;
  label: string;
  color: string;
  headline: Headline;
}

function lowestTitle(h: Headline, scale: SweepScale): string {
  if (scale.kind === "concurrency" && h.lowest?.x === 1) return "Single request";
  return "At lowest load";
}

function tauText(h: Headline): string {
  if (!h.accept) return "";
  return h.accept.min === h.accept.max
    ? formatNumber(h.accept.max)
    : `${formatNumber(h.accept.min)}–${formatNumber(h.accept.max)}`;
}

/**
 * The figures people quote: output tok/s at the lowest load (single request at C=1), peak
 * aggregate output tok/s and where it peaks, per-request decode speed at the peak, τ. One row of
 * tiles for a single series (its "Points" tile counts `tally`, every point of the table below,
 * when given); a compact table when the run has several series.
 */
export function HeadlineFigures({
  items,
  scale,
  tally,
}: {
  items: HeadlineItem[];
  scale: SweepScale;
  tally?: PointTally;
}) {
  if (items.length === 1 && items[0]) {
    const h = items[0].headline;
    const none = h.okCount + h.failedCount === 0 ? "no points yet" : "no successful point";
    // The "Points" tile counts what the point table lists (long-context points included).
    const t = tally ?? { ok: h.okCount, failed: h.failedCount, longContext: 0 };
    const split =
      t.longContext > 0
        ? `${t.ok + t.failed - t.longContext} sweep · ${t.longContext} long-context`
        : null;
    return (
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Figure
          label={lowestTitle(h, scale)}
          value={formatTokPerS(h.lowest?.value)}
          note={h.lowest ? `output at ${sweepPointLabel(h.lowest.x, scale)}` : none}
        />
        <Figure
          label="Peak aggregate output"
          value={formatTokPerS(h.peak?.value)}
          note={h.peak ? `at ${sweepPointLabel(h.peak.x, scale)}` : none}
          accent
        />
        <Figure
          label="Per-request decode at peak"
          value={formatTokPerS(h.decodeAtPeak)}
          note={decodeAtPeakNote(h, none)}
        />
        {h.accept ? (
          <Figure label="Acceptance length τ" value={tauText(h)} note="tokens per verify step" />
        ) : (
          <Figure
            label="Points"
            value={`${t.ok} ok`}
            note={
              <>
                {split && `${split} · `}
                {t.failed > 0 ? (
                  <span className="font-medium text-failed">{t.failed} failed</span>
                ) : t.ok === 0 ? (
                  none
                ) : (
                  "none failed"
                )}
              </>
            }
          />
        )}
      </div>
    );
  }
  const anyTau = items.some((i) => i.headline.accept);
  const anyDecode = items.some((i) => i.headline.decodeAtPeak !== null);
  return (
    <div className="rounded-lg border border-border bg-card">
      <Table>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Series</TableHead>
            <TableHead className="text-right">At lowest load (tok/s)</TableHead>
            <TableHead className="text-right">Peak output (tok/s)</TableHead>
            <TableHead>Peak at</TableHead>
            {anyDecode && <TableHead className="text-right">Per-request at peak (tok/s)</TableHead>}
            {anyTau && <TableHead className="text-right">τ</TableHead>}
            <TableHead className="text-right">Points ok / failed</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {items.map(({ key, label, color, headline: h }) => (
            <TableRow key={key}>
              <TableCell>
                <span className="flex items-center gap-1.5">
                  <span
                    aria-hidden
                    className="size-2 shrink-0 rounded-full"
                    style={{ background: color }}
                  />
                  {label}
                </span>
              </TableCell>
              <TableCell
                className="text-right"
                title={h.lowest ? sweepPointLabel(h.lowest.x, scale) : undefined}
              >
                {formatNumber(h.lowest?.value)}
              </TableCell>
              <TableCell className="text-right font-semibold">
                {formatNumber(h.peak?.value)}
              </TableCell>
              <TableCell>{h.peak ? sweepPointLabel(h.peak.x, scale) : "—"}</TableCell>
              {anyDecode && (
                <TableCell className="text-right">{formatNumber(h.decodeAtPeak)}</TableCell>
              )}
              {anyTau && <TableCell className="text-right">{tauText(h) || "—"}</TableCell>}
              <TableCell className="text-right">
                {h.okCount} /{" "}
                <span className={cn(h.failedCount > 0 && "font-semibold text-failed")}>
                  {h.failedCount}
                </span>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}

function Figure({
  label,
  value,
  note,
  accent,
}: {
  label: string;
  value: string;
  note: ReactNode;
  accent?: boolean;
}) {
  return (
    <div className="rounded-lg border border-border bg-card px-4 py-3">
      <div className="text-xs text-muted-fg">{label}</div>
      <div
        className={cn(
          "mt-0.5 text-2xl font-semibold tracking-tight tabular-nums",
          accent && "text-link",
        )}
      >
        {value}
      </div>
      {/* Wraps: a note ending in "…" had no tooltip ("8 sweep · 3 long-context · none fai…" on a phone). */}
      <div className="mt-0.5 text-xs break-words text-muted-fg">{note}</div>
    </div>
  );
}
