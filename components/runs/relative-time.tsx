"use client";

import { useNow } from "@/components/live/use-now";
import { useTimeZone } from "@/components/preferences/preferences-provider";
import { formatAbsoluteTime, formatRelativeTime } from "@/lib/format";

/** "5 min ago" that keeps itself current; the absolute time (chosen or local zone) shows on hover. */
export function RelativeTime({ iso, className }: { iso: string; className?: string }) {
  const now = useNow();
  const zone = useTimeZone();
  return (
    <time dateTime={iso} title={formatAbsoluteTime(iso, zone)} className={className}>
      {formatRelativeTime(iso, now)}
    </time>
  );
}
