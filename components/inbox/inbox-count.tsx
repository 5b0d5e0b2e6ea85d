"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { fetchInbox } from "@/lib/api/fetchers/inbox";
import { inboxQueryKey } from "@/lib/api/query-keys";

/**
 * The top bar's inbox link with the live number of waiting items (topic `inbox`). `initialCount`
 * comes from the server render, so the first paint already shows the number (never a dash).
 */
export function InboxCount({ initialCount }: { initialCount: number }) {
  const live = useLiveTopics(["inbox"]);
  const { data } = useQuery({
    queryKey: inboxQueryKey,
    queryFn: ({ signal }) => fetchInbox(signal),
    select: (d) => d.count,
    refetchInterval: refetchIntervalFor(live),
  });
  const count = data ?? initialCount;
  return (
    <Link
      href="/inbox"
      data-testid="inbox-count"
      className="inline-flex min-h-11 items-center gap-1.5 rounded-md px-2 text-sm font-medium hover:bg-muted"
      aria-label={`Inbox: ${count} waiting`}
    >
      <span className="hidden sm:inline">Inbox</span>
      <span
        className={`inline-flex h-5 min-w-5 items-center justify-center rounded-full px-1.5 text-xs font-semibold tabular-nums ${count ? "bg-primary text-primary-fg" : "bg-muted text-muted-fg"}`}
      >
        {count}
      </span>
    </Link>
  );
}
