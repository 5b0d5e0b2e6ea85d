"use client";

import { useQuery } from "@tanstack/react-query";
import { Hand } from "lucide-react";
import Link from "next/link";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { useServerNow } from "@/components/pipelines/use-server-now";
import { RelativeTime } from "@/components/runs/relative-time";
import { SessionSourceLabel } from "@/components/sessions/session-source";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fetchWaitingPlans } from "@/lib/api/fetchers/plans";
import { waitingPlansQueryKey } from "@/lib/api/query-keys";
import { planPath, sessionPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { PlanListView } from "@/lib/view-models/plans";
import { sessionLabel } from "@/lib/view-models/sessions";

/**
 * The overview's "Waiting for a person" card: each plan an agent (or worker) waits on — which
 * agent, on which host, in which session and project, since when — with a link to decide it.
 * Live on topic `plans`; renders nothing while no plan waits. Plans past their expiry leave it on
 * the server's clock. Below md (no hover on a phone) titles and names wrap in full instead of
 * ending in "…".
 */
export function WaitingPlansCard({
  initial,
  renderedAt,
}: {
  initial: PlanListView;
  renderedAt: number;
}) {
  const live = useLiveTopics(["plans"]);
  const { data, dataUpdatedAt } = useQuery({
    queryKey: waitingPlansQueryKey,
    queryFn: ({ signal }) => fetchWaitingPlans(signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const serverNow = useServerNow(data.asOf, dataUpdatedAt);
  const waiting = data.plans.filter(
    (p) => p.state === "proposed" && Date.parse(p.expiresAt) > serverNow,
  );
  if (waiting.length === 0) return null;
  const more = data.pendingCount - waiting.length;
  return (
    <Card className="min-w-0 overflow-hidden border-primary/40">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Hand aria-hidden className="size-4 text-primary" />
          Waiting for a person
        </CardTitle>
        <CardDescription className="ml-auto tabular-nums">
          {data.pendingCount} plan{data.pendingCount === 1 ? "" : "s"} ·{" "}
          <Link href="/plans" className="text-link hover:underline">
            All plans
          </Link>
        </CardDescription>
      </CardHeader>
      <ul aria-label="Plans waiting for a decision" className="divide-y divide-border">
        {waiting.map((p) => (
          <li
            key={p.id}
            className="grid grid-cols-[minmax(0,1fr)_auto] items-center gap-x-3 gap-y-1 px-4 py-2 text-[13px]"
          >
            <div className="min-w-0">
              <Link
                href={planPath(p.id)}
                className="font-medium [overflow-wrap:anywhere] hover:underline md:line-clamp-2"
                title={p.title}
              >
                {p.title}
              </Link>
              <div className="flex min-w-0 flex-wrap items-center gap-x-1.5 text-xs text-muted-fg [&>*+*]:before:mr-1.5 [&>*+*]:before:content-['·']">
                <span className="inline-flex max-w-full min-w-0 items-center gap-1">
                  {p.session ? <SessionSourceLabel source={p.session.source} /> : "A worker"}
                  <span
                    className="truncate max-md:wrap-anywhere max-md:whitespace-normal"
                    title={p.host}
                  >
                    on {p.host}
                  </span>
                </span>
                {p.session && (
                  <Link
                    href={sessionPath(p.session.id)}
                    className="min-w-0 truncate hover:underline max-md:wrap-anywhere max-md:whitespace-normal"
                    title={`${sessionLabel(p.session)}\n${p.session.key}`}
                  >
                    {/* Without a title the opaque session id says nothing: the project names it. */}
                    {p.session.title
                      ? `session ${p.session.title}`
                      : p.session.project
                        ? `session in project ${p.session.project}`
                        : `session ${p.session.key}`}
                  </Link>
                )}
                {p.session?.title && p.session.project && (
                  <span className="truncate max-md:wrap-anywhere max-md:whitespace-normal">
                    project {p.session.project}
                  </span>
                )}
                <span className="whitespace-nowrap tabular-nums">
                  waiting since <RelativeTime iso={p.proposedAt} />
                </span>
                {p.supersedes && <span>revised after changes were requested</span>}
              </div>
            </div>
            <Link
              href={planPath(p.id)}
              className={cn(buttonVariants({ size: "sm" }))}
              aria-label={`Decide “${p.title}”`}
            >
              Decide
            </Link>
          </li>
        ))}
      </ul>
      {more > 0 && (
        <p className="border-t border-border px-4 py-2 text-xs text-muted-fg">
          + {more} more on{" "}
          <Link href="/plans" className="text-link hover:underline">
            /plans
          </Link>
        </p>
      )}
    </Card>
  );
}
