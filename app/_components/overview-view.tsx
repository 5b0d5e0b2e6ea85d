"use client";

import { useQuery } from "@tanstack/react-query";
import { Maximize2, Minimize2, OctagonAlert } from "lucide-react";
import Link from "next/link";
import { useRef } from "react";

import { HostLine } from "@/components/hosts/host-line";
import { useLiveInvalidate } from "@/components/hosts/use-live-invalidate";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { LiveIndicator } from "@/components/nav/live-indicator";
import { ActiveRunRow } from "@/components/pipelines/active-run-row";
import { EventList } from "@/components/pipelines/event-list";
import { useAlertTitle } from "@/components/pipelines/use-alert-title";
import { liveRunState, useServerNow } from "@/components/pipelines/use-server-now";
import { WaitingPlansCard } from "@/components/plans/waiting-plans-card";
import { buttonVariants } from "@/components/ui/button";
import { fetchOverview } from "@/lib/api/fetchers/overview";
import { overviewPageQueryKey, overviewQueryKey } from "@/lib/api/query-keys";
import { pickDurationUnit } from "@/lib/column-format";
import { runPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import { wallHostRows } from "@/lib/view-models/hosts";
import type { InboxSummary } from "@/lib/view-models/inbox";
import type { OverviewView as Overview } from "@/lib/view-models/overview";
import type { PlanListView } from "@/lib/view-models/plans";

import { OverviewEmptyState } from "./overview-empty-state";
import { ActivePager, FinishedRow, OlderStale, orderRuns, Section } from "./overview-sections";
import { useWallFit, useWallPage, WallClock, WallExitOnEscape, WallFigures } from "./wall-parts";
import { WALL_THEME } from "./wall-theme";

/** Host rows a wall lists before the rest become one "+ N more" line. */
const WALL_HOST_ROWS = 6;
/** Event lines (grouped, two text lines each at most) the wall shows above the hosts. */
const WALL_EVENT_ROWS = 5;
/**
 * Alert lines the wall shows above its lists; the rest are one "+ N more alerts" line (the alerts
 * figure counts them all). Thirteen alerting runs pushed every run and host off a 1080p screen (issue 25).
 */
const WALL_ALERT_ROWS = 2;

interface OverviewViewProps {
  initial: Overview;
  /** The first plans, pending first, for the "Waiting for a person" card. */
  plans: PlanListView;
  /** The inbox count and oldest wait at render time (the wall's figure, from the first paint). */
  inbox: InboxSummary;
  renderedAt: number;
  wall: boolean;
  origin: string;
}

/**
 * The overview, live: running and stale runs with progress lines, alerts, hosts, events and recently
 * finished runs. Run states are re-derived every second on the server's clock, so a run whose
 * worker went quiet turns amber on time even though nothing is pushed. `wall` shows it full
 * screen and dark with larger type for a team TV.
 */
export function OverviewView({
  initial,
  plans,
  inbox,
  renderedAt,
  wall,
  origin,
}: OverviewViewProps) {
  const live = useLiveTopics(["runs"]);
  useLiveInvalidate(["hosts"], [overviewQueryKey]);
  const alertTitle = useAlertTitle();
  const offset = initial.activeCounts.offset;
  const { data, error, dataUpdatedAt } = useQuery({
    queryKey: overviewPageQueryKey(offset),
    queryFn: ({ signal }) => fetchOverview(signal, offset),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const serverNow = useServerNow(data.asOf, dataUpdatedAt);
  const runs = orderRuns(
    data.active.map((run) => ({
      run,
      state: liveRunState(run.state, run.lastPushAt, run.stallAfterS, serverNow),
    })),
  );
  // Counts cover every active run (the list is one page); the page's own re-derived states can
  // only add runs that turned stale since the response.
  const pageStale =
    runs.filter((r) => r.state === "stale").length -
    data.active.filter((r) => r.state === "stale").length;
  const staleCount = data.activeCounts.stale + pageStale;
  const runningCount = data.activeCounts.running - pageStale;
  const alerting = data.active.filter((r) => r.activeAlerts.length > 0);
  const alertLines = alerting.flatMap((r) => r.activeAlerts.map((code) => ({ r, code })));
  const alertsShown = wall ? alertLines.slice(0, WALL_ALERT_ROWS) : alertLines;
  const alertsMore = alertLines.length - alertsShown.length;
  const online = data.hosts.filter((h) => h.state === "online").length;
  // On the wall the working hosts lead and a tail of quiet ones is one line: events keep their place on the screen.
  const hostRows = wall
    ? wallHostRows(data.hosts, WALL_HOST_ROWS)
    : { shown: data.hosts, hidden: 0, hiddenOffline: 0 };
  const wallFrame = useRef<HTMLDivElement>(null);
  // One duration unit for the finished runs, named in the section's header ("46.8 s" beside "1d 0h" read as noise, issue 25).
  const recent = data.recent.slice(0, wall ? 5 : 10);
  const recentUnit = pickDurationUnit(recent.map((r) => r.durationS));
  const fit = useWallFit(
    wallFrame,
    wall,
    runs.map(({ run }) => String(run.id)),
  );
  const wallPage = useWallPage(runs.length, fit.pageStarts);
  // Host rows the screen had no room for join the tail line's count (the last shown ones leave).
  const hostsMore = hostRows.hidden + fit.keepCut;
  const hostsMoreOffline =
    hostRows.hiddenOffline +
    (fit.keepCut > 0
      ? hostRows.shown.slice(-fit.keepCut).filter((h) => h.state === "offline").length
      : 0);

  const summary = (
    <span
      className={cn(
        "flex flex-wrap items-baseline gap-x-3 text-muted-fg tabular-nums",
        wall ? "text-lg" : "text-sm",
      )}
    >
      <span>
        <span className="font-medium text-foreground">{runningCount.toLocaleString("en-US")}</span>{" "}
        running
      </span>
      {staleCount > 0 && (
        <span className="font-medium text-stale">{staleCount.toLocaleString("en-US")} stale</span>
      )}
      {data.hosts.length > 0 && (
        <span>
          <span className="font-medium text-foreground">{online}</span>/{data.hosts.length} hosts
          online
        </span>
      )}
      {data.activeCounts.alerting > 0 && (
        <span className="font-medium text-failed">
          {data.activeCounts.alerting.toLocaleString("en-US")} alerting
        </span>
      )}
    </span>
  );

  const eventsSection = (
    <Section title="Events and alerts" wall={wall} fit="yield">
      <EventList
        events={data.events}
        grouped={wall}
        limit={wall ? WALL_EVENT_ROWS : 30}
        wall={wall}
        emptyText="No events yet: workers send them with run.event; alerts appear here too."
        className={wall ? undefined : "max-h-[32rem] overflow-y-auto"}
        scrollLabel={wall ? undefined : "Events and alerts"}
      />
    </Section>
  );
  const body = (
    <>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the overview ({error.message}); showing the last data received.
        </p>
      )}
      {alerting.length > 0 && (
        <div
          role="alert"
          className={cn(
            "grid gap-1 rounded-lg border border-failed/50 bg-failed-bg px-4 py-2.5 text-failed",
            wall ? "text-lg" : "text-sm",
          )}
        >
          {alertsShown.map(({ r, code }) => (
            // A phone reads the line as running text (icon, title, "in", name wrapping word by
            // word); flex-wrap put each part on a line of its own, "in" alone.
            <div key={`${r.id}-${code}`} className="flex items-center gap-2 max-md:block">
              <OctagonAlert
                aria-hidden
                className={cn(
                  "shrink-0 max-md:mr-1.5 max-md:inline max-md:align-[-0.125em]",
                  wall ? "size-5" : "size-4",
                )}
              />
              <span className="font-semibold">{alertTitle(code)}</span>{" "}
              <span data-testid="alert-in">in</span>{" "}
              {/* Cut with a tooltip on a desktop; in full on a phone (no hover there). */}
              <Link
                href={runPath(r.id)}
                title={r.name}
                className="min-w-0 truncate font-medium underline-offset-4 hover:underline max-md:break-words max-md:whitespace-normal"
              >
                {r.name}
              </Link>
            </div>
          ))}
          {alertsMore > 0 && (
            <div data-testid="wall-alerts-more">
              + {alertsMore} more alert{alertsMore === 1 ? "" : "s"}
            </div>
          )}
        </div>
      )}
      {!wall && <WaitingPlansCard initial={plans} renderedAt={renderedAt} />}
      {data.empty ? (
        <OverviewEmptyState origin={origin} />
      ) : (
        <div
          className={cn(
            "grid gap-4",
            wall
              ? "md:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]"
              : "xl:grid-cols-[minmax(0,1fr)_minmax(340px,400px)] 2xl:grid-cols-[minmax(0,1fr)_minmax(400px,480px)]",
          )}
        >
          <div className="grid min-w-0 content-start gap-4">
            <Section
              title="Running now"
              wall={wall}
              note={
                <>
                  {wall && wallPage.pages > 1 && (
                    <span className="tabular-nums">
                      page {wallPage.page + 1} of {wallPage.pages}
                      {data.olderStaleCount > 0 && " · "}
                    </span>
                  )}
                  {data.olderStaleCount > 0 && <OlderStale count={data.olderStaleCount} />}
                </>
              }
            >
              {runs.length === 0 ? (
                <p
                  className={cn(
                    "px-4 py-6 text-center text-muted-fg",
                    wall ? "text-lg" : "text-sm",
                  )}
                >
                  Nothing is running right now.
                </p>
              ) : (
                <ul aria-label="Running and stale runs">
                  {(wall ? runs.slice(wallPage.start, wallPage.end) : runs).map(
                    ({ run, state }) => (
                      <ActiveRunRow
                        key={run.id}
                        run={run}
                        state={state}
                        serverNowMs={serverNow}
                        wall={wall}
                      />
                    ),
                  )}
                </ul>
              )}
              <ActivePager counts={data.activeCounts} shown={data.active.length} wall={wall} />
            </Section>
            {data.recent.length > 0 && (
              <Section
                title="Recently finished"
                wall={wall}
                note={<span data-testid="recent-duration-unit">duration ({recentUnit})</span>}
              >
                <ul>
                  {recent.map((r) => (
                    <FinishedRow key={r.id} run={r} wall={wall} unit={recentUnit} />
                  ))}
                </ul>
              </Section>
            )}
          </div>
          <div className="grid min-w-0 content-start gap-4">
            {/* On the wall, events and alerts lead the column (at most WALL_EVENT_ROWS, each cut to two
                lines, fewer when the first host row would not fit) and the host list gets the rest, whole
                rows only: long events pushed every host off a 1080p screen (issue 25). */}
            {wall && eventsSection}
            <Section
              title="Hosts"
              wall={wall}
              fit="keep"
              note={
                <Link href="/hosts" className="text-link hover:underline">
                  All hosts
                </Link>
              }
            >
              {data.hosts.length === 0 ? (
                <p className="px-4 py-3 text-sm text-muted-fg">No hosts yet.</p>
              ) : (
                <>
                  <ul className="divide-y divide-border">
                    {hostRows.shown.map((h) => (
                      <HostLine key={h.name} host={h} asOf={data.asOf} wall={wall} />
                    ))}
                  </ul>
                  {hostsMore > 0 && (
                    <p
                      className="border-t border-border px-4 py-1.5 text-sm text-muted-fg"
                      data-testid="wall-hosts-more"
                      data-wall-tail=""
                      data-wall-tail-base={hostRows.hidden}
                    >
                      + {hostsMore} more host{hostsMore === 1 ? "" : "s"}
                      {hostsMoreOffline > 0 &&
                        ` (${hostsMoreOffline === hostsMore ? "all" : hostsMoreOffline} offline)`}
                    </p>
                  )}
                </>
              )}
            </Section>
            {!wall && eventsSection}
          </div>
        </div>
      )}
    </>
  );

  if (wall) {
    return (
      <div
        ref={wallFrame}
        style={WALL_THEME}
        className="fixed inset-0 z-50 overflow-hidden bg-background px-6 py-4 text-foreground max-md:overflow-y-auto max-md:px-3"
        data-testid="wall"
        data-wall
      >
        <WallExitOnEscape />
        {/* Figures, clock and exit share one row: the screen's height goes to the runs. */}
        <div className="mb-3 flex flex-col-reverse items-stretch gap-2 md:flex-row md:gap-4">
          <WallFigures
            running={runningCount}
            stale={staleCount}
            hostsOnline={online}
            hosts={data.hosts.length}
            alerts={alerting.reduce((n, r) => n + r.activeAlerts.length, 0)}
            initialInbox={inbox}
            renderedAt={renderedAt}
            className="min-w-0 flex-1"
          />
          <div className="flex shrink-0 flex-row flex-wrap items-center justify-between gap-x-4 md:flex-col md:items-end md:justify-center">
            <div className="flex items-baseline gap-4">
              <span className="text-lg font-semibold tracking-tight text-muted-fg">Pitwall</span>
              <WallClock />
            </div>
            <div className="flex items-center gap-4">
              <span className="[&>span]:text-sm">
                <LiveIndicator />
              </span>
              <Link
                href="/"
                className="rounded-md px-2 py-0.5 text-sm text-muted-fg hover:bg-muted hover:text-foreground"
                title="Leave wall mode (Esc)"
              >
                <Minimize2 aria-hidden className="mr-1 inline size-4" />
                Exit
              </Link>
            </div>
          </div>
        </div>
        <div className="grid gap-4">{body}</div>
      </div>
    );
  }
  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-baseline gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Overview</h1>
        {!data.empty && summary}
        {/* Not on a phone: the wall is for a team screen (issue 25). */}
        <Link
          href="/?wall=1"
          className={cn(
            buttonVariants({ variant: "outline", size: "sm" }),
            "ml-auto self-center max-md:hidden",
          )}
          title="Full screen, dark, large type: for a team screen"
        >
          <Maximize2 aria-hidden />
          Wall mode
        </Link>
      </div>
      {body}
    </div>
  );
}
