"use client";

import { useQuery } from "@tanstack/react-query";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { useNow } from "@/components/live/use-now";
import { fetchPendingPlanCount, pendingPlansQueryKey } from "@/components/plans/queries";
import { cn } from "@/lib/utils";

/** Runs shown at once on the wall; more rotate through pages. */
export const WALL_RUNS_PER_PAGE = 4;
/** Seconds each page of runs stays on the wall. */
export const WALL_PAGE_S = 12;

/** Which page of `count` items the wall shows now: pages turn every {@link WALL_PAGE_S} s on the shared clock. */
export function useWallPage(count: number, perPage = WALL_RUNS_PER_PAGE): { page: number; pages: number; start: number; end: number } {
  const now = useNow(1000);
  const pages = Math.max(1, Math.ceil(count / perPage));
  const page = Math.floor(now / (WALL_PAGE_S * 1000)) % pages;
  return { page, pages, start: page * perPage, end: (page + 1) * perPage };
}

function Figure({ value, label, tone }: { value: string; label: string; tone?: "stale" | "failed" | "running" }) {
  return (
    <div className="min-w-0 rounded-lg border border-border bg-card px-4 py-2" data-testid="wall-figure">
      <div className={cn("text-3xl leading-tight font-semibold tabular-nums", tone === "stale" ? "text-stale" : tone === "failed" ? "text-failed" : tone === "running" ? "text-running" : "")}>{value}</div>
      <div className="truncate text-sm text-muted-fg">{label}</div>
    </div>
  );
}

/**
 * The wall's headline row: running, stale, plans waiting for a person, hosts online and alerts, in
 * figures big enough to read across a room (the wall's type scales with the viewport width).
 */
export function WallFigures({ running, stale, hostsOnline, hosts, alerts }: { running: number; stale: number; hostsOnline: number; hosts: number; alerts: number }) {
  const live = useLiveTopics(["plans"]);
  const { data: plans } = useQuery({ queryKey: pendingPlansQueryKey, queryFn: ({ signal }) => fetchPendingPlanCount(signal), refetchInterval: refetchIntervalFor(live) });
  return (
    <div className="mb-4 grid grid-cols-5 gap-4">
      <Figure value={String(running)} label="running" tone="running" />
      <Figure value={String(stale)} label="stale" tone={stale > 0 ? "stale" : undefined} />
      <Figure value={plans === undefined ? "—" : String(plans)} label="plans waiting" tone={plans ? "stale" : undefined} />
      <Figure value={`${hostsOnline}/${hosts}`} label="hosts online" tone={hostsOnline < hosts ? "stale" : undefined} />
      <Figure value={String(alerts)} label={alerts === 1 ? "alert" : "alerts"} tone={alerts > 0 ? "failed" : undefined} />
    </div>
  );
}
