"use client";

import { useHydrated, useNow } from "@/components/live/use-now";
import { formatAbsoluteTime, formatRelativeTime } from "@/lib/format";

/** "5 min ago" that keeps itself current; the absolute time (local zone) shows on hover. */
export function RelativeTime({ iso, className }: { iso: string; className?: string }) {
  const now = useNow();
  const hydrated = useHydrated();
  const zone = hydrated ? Intl.DateTimeFormat().resolvedOptions().timeZone : undefined;
  return (
    <time dateTime={iso} title={formatAbsoluteTime(iso, zone)} className={className}>
      {formatRelativeTime(iso, now)}
    </time>
  );
}
