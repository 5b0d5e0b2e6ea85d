"use client";

import { useTimeZone } from "@/components/preferences/preferences-provider";
import { formatAbsoluteTime, formatDuration } from "@/lib/format";
import { cn } from "@/lib/utils";

/** Below this many seconds left, the countdown turns amber. */
const SOON_S = 15 * 60;

/**
 * Time left before an undecided plan expires ("in 23h 59m", seconds shown in the last hour), on
 * the server's clock (`serverNowMs`); "expired" once past. Decided plans show nothing.
 */
export function ExpiryCountdown({
  expiresAt,
  serverNowMs,
  pending,
  className,
}: {
  expiresAt: string;
  serverNowMs: number;
  pending: boolean;
  className?: string;
}) {
  const zone = useTimeZone();
  if (!pending) return null;
  const leftS = (Date.parse(expiresAt) - serverNowMs) / 1000;
  return (
    <time
      dateTime={expiresAt}
      title={`Expires ${formatAbsoluteTime(expiresAt, zone)}`}
      className={cn("tabular-nums", leftS <= SOON_S && "font-medium text-stale", className)}
    >
      {leftS <= 0 ? "expired" : `in ${formatDuration(Math.floor(leftS))}`}
    </time>
  );
}
