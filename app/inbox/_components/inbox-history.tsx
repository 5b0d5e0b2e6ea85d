"use client";

import { useQuery } from "@tanstack/react-query";

import { InboxAuditList } from "@/components/inbox/audit-list";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { fetchInboxAudit } from "@/lib/api/fetchers/inbox";
import { inboxAuditQueryKey } from "@/lib/api/query-keys";
import type { InboxAuditEntry } from "@/lib/view-models/inbox";

/** /inbox history: every decision and rule application, newest first, live; CSV download. */
export function InboxHistory({ initial }: { initial: InboxAuditEntry[] }) {
  const live = useLiveTopics(["inbox"]);
  const { data } = useQuery({
    queryKey: inboxAuditQueryKey,
    queryFn: ({ signal }) => fetchInboxAudit(signal),
    initialData: initial,
    refetchInterval: refetchIntervalFor(live),
  });
  return (
    <section className="grid gap-3" aria-labelledby="inbox-history-title">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="inbox-history-title" className="text-base font-semibold">
          History
        </h2>
        {data.length > 0 && (
          <span className="text-sm text-muted-fg">the latest {data.length}, newest first</span>
        )}
        <a
          className="ml-auto inline-flex min-h-11 items-center text-sm text-link underline-offset-4 hover:underline"
          href="/api/inbox/audit?format=csv"
          download
        >
          Download CSV
        </a>
      </div>
      <InboxAuditList entries={data} />
    </section>
  );
}
