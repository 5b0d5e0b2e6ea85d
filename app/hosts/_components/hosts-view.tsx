"use client";

import { useQuery } from "@tanstack/react-query";
import { Server } from "lucide-react";

import { HostCard } from "@/components/hosts/host-card";
import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { LIST_REFRESH_MS } from "@/components/live/coalesce";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { CopyButton } from "@/components/ui/copy-button";
import { fetchHosts } from "@/lib/api/fetchers/hosts";
import { hostsQueryKey } from "@/lib/api/query-keys";
import type { HostListView } from "@/lib/view-models/hosts";

const COUNTS = ["online", "stale", "offline"] as const;

/** The live host grid: hosts refresh on heartbeats (`hosts`) and run changes (`runs`). */
export function HostsView({ initial, renderedAt }: { initial: HostListView; renderedAt: number }) {
  const live = useLiveTopics(["runs"]);
  useLiveInvalidate(["hosts", "runs"], [hostsQueryKey], { minIntervalMs: LIST_REFRESH_MS });
  const { data, error } = useQuery({
    queryKey: hostsQueryKey,
    queryFn: ({ signal }) => fetchHosts(signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const counts = COUNTS.map(
    (s) => [s, data.hosts.filter((h) => h.state === s).length] as const,
  ).filter(([, n]) => n > 0);

  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-baseline gap-x-4 gap-y-1">
        <h1 className="text-lg font-semibold tracking-tight">Hosts</h1>
        <span className="text-sm text-muted-fg tabular-nums">
          {counts.map(([s, n]) => `${n} ${s}`).join(" · ")}
        </span>
      </div>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the hosts ({error.message}); showing the last data received.
        </p>
      )}
      {data.hosts.length === 0 ? (
        <div className="mx-auto flex w-full max-w-3xl flex-col gap-3 rounded-lg border border-border bg-card p-6">
          <div className="flex items-center gap-3">
            <span className="rounded-md bg-muted p-2 text-muted-fg">
              <Server aria-hidden className="size-5" />
            </span>
            <div>
              <h2 className="text-base font-semibold">No hosts yet</h2>
              <p className="text-sm text-muted-fg">
                A host appears when it gets a worker token; its GPUs show once it sends heartbeats.
              </p>
            </div>
          </div>
          <div className="flex items-start gap-1 rounded-md border border-border bg-muted/60 py-1.5 pr-1 pl-3">
            <pre className="min-w-0 flex-1 overflow-x-auto py-0.5 font-mono text-xs leading-5">
              npx pitwall token create $(hostname)
            </pre>
            <CopyButton
              text="npx pitwall token create $(hostname)"
              label="Copy the token command"
            />
          </div>
        </div>
      ) : (
        <div className="grid items-start gap-4 min-[2000px]:grid-cols-4 md:grid-cols-2 2xl:grid-cols-3">
          {data.hosts.map((h) => (
            <HostCard key={h.name} host={h} asOf={data.asOf} />
          ))}
        </div>
      )}
    </div>
  );
}
