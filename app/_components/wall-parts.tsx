"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type RefObject } from "react";

import { waitedLabel } from "@/components/inbox/waited";
import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { useNow } from "@/components/live/use-now";
import { formatClock } from "@/components/pipelines/units";
import { useTimeZone } from "@/components/preferences/preferences-provider";
import { fetchInbox } from "@/lib/api/fetchers/inbox";
import { cn } from "@/lib/utils";
import type { InboxSummary } from "@/lib/view-models/inbox";

import { packWallPages, WALL_RUNS_PER_PAGE } from "./wall-pages";

/** The wall's inbox figure query (prefix `inbox`: the live topic `inbox` refreshes it). */
const inboxSummaryQueryKey = ["inbox", "summary"] as const;

/** Seconds each page of runs stays on the wall. */
export const WALL_PAGE_S = 12;

/**
 * Which page of `count` items the wall shows now: pages turn every {@link WALL_PAGE_S} s on the
 * shared clock. `pageStarts` is the first index of each page (from {@link packWallPages}); without
 * it pages hold {@link WALL_RUNS_PER_PAGE} items. Returns the page (0-based), page count, and the
 * page's items as `[start, end)`.
 */
export function useWallPage(
  count: number,
  pageStarts: readonly number[] | null,
): { page: number; pages: number; start: number; end: number } {
  const now = useNow(1000);
  const starts =
    pageStarts && pageStarts.length > 0
      ? pageStarts
      : Array.from(
          { length: Math.max(1, Math.ceil(count / WALL_RUNS_PER_PAGE)) },
          (_, i) => i * WALL_RUNS_PER_PAGE,
        );
  const pages = starts.length;
  const page = Math.floor(now / (WALL_PAGE_S * 1000)) % pages;
  return { page, pages, start: starts[page]!, end: starts[page + 1] ?? count };
}

/** At most this many runs per wall page, however short their rows (a 4K wall fits about ten). */
const WALL_MAX_RUNS_PER_PAGE = 12;

/** Below this width (px) the wall is a phone's: one scrolling column, every run, nothing hidden. */
const WALL_PHONE_MAX_PX = 767;
/** Height a list's tail line ("+ N more hosts") takes before it is first drawn, in px. */
const WALL_TAIL_PX = 34;

/**
 * Keeps the wall on one screen (a TV cannot scroll, issue 12). Runs (`runIds`, in list order) are
 * packed into pages by each row's height as last drawn between the top of the runs list and the
 * screen's bottom edge ({@link packWallPages}; a row not drawn yet counts as the tallest seen, a resize
 * measures anew): every page fits, and four short rows share one page even when another run's row is
 * tall (it paged them two by two by the tallest row, issue 25). Any other list row (`li`) that would end below the bottom edge is hidden instead of shown
 * cut in half, and so is a section (`[data-wall-section]`) with no row left on screen. Rows of a
 * `[data-wall-yield]` section (events) are dropped from its end while the first row of the
 * `[data-wall-keep]` section (hosts) would not fit. Rows of the keep section that would end below
 * the screen are taken out (not only hidden) so its tail line (`[data-wall-tail]`, "+ N more
 * hosts") moves up and fits, and their count is returned as `keepCut` for that line to include.
 * Checked again on every change inside the frame. Returns the first index of each page (null until
 * measured; one page on a phone) and `keepCut`.
 */
export function useWallFit(
  frame: RefObject<HTMLElement | null>,
  enabled: boolean,
  runIds: readonly string[],
): { pageStarts: number[] | null; keepCut: number } {
  const [pageStarts, setPageStarts] = useState<number[] | null>(null);
  const [keepCut, setKeepCut] = useState(0);
  const idsKey = runIds.join(" ");
  // Each run row's height as last drawn (px), kept while the row is on another page and while the
  // list's order changes (runs turning stale reorder it; starting over made the pages churn).
  const heightsRef = useRef(new Map<string, number>());
  useEffect(() => {
    const el = frame.current;
    if (!enabled || !el) return;
    const ids = idsKey === "" ? [] : idsKey.split(" ");
    const heights = heightsRef.current;
    // Runs that left the list are forgotten (a wall stays open for days).
    const listed = new Set(ids);
    for (const id of heights.keys()) if (!listed.has(id)) heights.delete(id);
    const setStarts = (next: number[]) =>
      setPageStarts((prev) => (prev?.join() === next.join() ? prev : next));
    const check = () => {
      // A phone cannot be a team screen: it scrolls (every row shown, no rotation) instead of fitting.
      if (window.innerWidth <= WALL_PHONE_MAX_PX) {
        for (const hidden of el.querySelectorAll<HTMLElement>("li, [data-wall-section]")) {
          hidden.style.visibility = "";
          hidden.style.display = "";
        }
        setStarts([0]);
        setKeepCut(0);
        return;
      }
      const bottom =
        el.getBoundingClientRect().bottom -
        Number.parseFloat(getComputedStyle(el).paddingBottom) +
        1;
      const runRows = [...el.querySelectorAll<HTMLElement>('[data-testid="active-run"]')];
      const runs = runRows.map((row) => row.getBoundingClientRect());
      if (runs.length > 0) {
        runRows.forEach((row, i) => {
          // The list's last row draws no bottom border; elsewhere on a page it would.
          const border = i === runRows.length - 1 ? 1 : 0;
          if (row.dataset.runId) heights.set(row.dataset.runId, runs[i]!.height + border);
        });
        // What the runs' card holds below its rows (the "Runs 101–110 of 110" line, its padding and
        // border) stays on the screen too: it was left out, and pushed below a full page (issue 25).
        const section = runRows[0]!.closest<HTMLElement>("[data-wall-section]");
        const below = section
          ? section.getBoundingClientRect().bottom - runs[runs.length - 1]!.bottom
          : 0;
        const room = bottom - runs[0]!.top - Math.max(0, below);
        setStarts(
          packWallPages(
            ids.map((id) => heights.get(id)),
            room,
            WALL_MAX_RUNS_PER_PAGE,
          ),
        );
      }
      // Events give way to the hosts: while the first host row ends below the screen, the last
      // shown event row goes (at least one stays), so a room sees both.
      const keep = el.querySelector<HTMLElement>("[data-wall-keep] li");
      const yielding = [...el.querySelectorAll<HTMLElement>("[data-wall-yield] li")];
      for (const li of yielding) li.style.display = "";
      for (let n = yielding.length - 1; keep && n >= 1; n--) {
        if (keep.getBoundingClientRect().bottom <= bottom) break;
        yielding[n]!.style.display = "none";
      }
      // Keep-section rows below the screen (room left for its tail line) leave, and are counted in it.
      const keepRows = [...el.querySelectorAll<HTMLElement>("[data-wall-keep] li")];
      for (const li of keepRows) li.style.display = "";
      const tail = el.querySelector<HTMLElement>("[data-wall-keep] [data-wall-tail]");
      // The tail shows when the list has rows left out anyway (`data-wall-tail-base`) or when rows go now.
      const overflow = keepRows.some((li) => li.getBoundingClientRect().bottom > bottom);
      const tailRoom =
        overflow || Number(tail?.dataset.wallTailBase ?? 0) > 0
          ? (tail?.offsetHeight ?? WALL_TAIL_PX)
          : 0;
      const cut = keepRows.filter((li) => li.getBoundingClientRect().bottom > bottom - tailRoom);
      // One row or none at all on screen: the generic rule below hides them (and the section).
      const leaving = cut.length < keepRows.length ? cut : [];
      for (const li of leaving) li.style.display = "none";
      setKeepCut(leaving.length);
      // A list's tail line ("+ N more hosts") goes like a row when it would end below the screen.
      for (const li of el.querySelectorAll<HTMLElement>("li, [data-wall-tail]"))
        li.style.visibility = li.getBoundingClientRect().bottom > bottom ? "hidden" : "";
      for (const section of el.querySelectorAll<HTMLElement>("[data-wall-section]")) {
        const rows = [...section.querySelectorAll<HTMLElement>("li")];
        const header = section.firstElementChild;
        const cut =
          (header !== null && header.getBoundingClientRect().bottom > bottom) ||
          (rows.length > 0 && rows.every((li) => li.style.visibility === "hidden"));
        section.style.visibility = cut ? "hidden" : "";
      }
    };
    const onResize = () => {
      heights.clear();
      check();
    };
    // Row contents change without any prop of this component changing (live data, the clock).
    const observer = new MutationObserver(check);
    observer.observe(el, { childList: true, subtree: true, characterData: true });
    // Rows also change height with no DOM change (a web font arriving, a column's width settling,
    // text wrapping anew): measured before that, a page of them ended below the screen (issue 25).
    // Watching the frame's blocks and the sections' lists catches every such change of height.
    const resized = new ResizeObserver(check);
    const watch = () => {
      resized.disconnect();
      for (const block of el.querySelectorAll<HTMLElement>(
        ":scope > *, :scope > * > *, [data-wall-section], [data-wall-section] ul",
      ))
        resized.observe(block);
    };
    const onMutation = new MutationObserver(watch);
    onMutation.observe(el, { childList: true, subtree: true });
    watch();
    window.addEventListener("resize", onResize);
    check();
    return () => {
      onMutation.disconnect();
      resized.disconnect();
      observer.disconnect();
      window.removeEventListener("resize", onResize);
    };
  }, [frame, enabled, idsKey]);
  return { pageStarts, keepCut };
}

function Figure({
  value,
  label,
  tone,
  name,
}: {
  value: string;
  label: string;
  tone?: "stale" | "failed" | "running";
  /** `data-figure` (for tests and people reading the DOM). */
  name?: string;
}) {
  return (
    <div
      className="flex min-w-0 flex-wrap items-baseline gap-x-3 rounded-lg border border-border bg-card px-4 py-1.5"
      data-testid="wall-figure"
      data-figure={name}
    >
      <div
        className={cn(
          "text-3xl leading-tight font-semibold tabular-nums",
          tone === "stale"
            ? "text-stale"
            : tone === "failed"
              ? "text-failed"
              : tone === "running"
                ? "text-running"
                : "",
        )}
      >
        {value}
      </div>
      <div className="text-sm text-muted-fg">{label}</div>
    </div>
  );
}

/**
 * The wall's headline row: running, stale, the inbox (everything an agent waits on: permissions,
 * questions, notices, plans) with its oldest wait, hosts online and alerts, in figures big enough
 * to read across a room (the wall's type scales with the viewport width).
 */
export function WallFigures({
  running,
  stale,
  hostsOnline,
  hosts,
  alerts,
  initialInbox,
  renderedAt,
  className,
}: {
  running: number;
  stale: number;
  hostsOnline: number;
  hosts: number;
  alerts: number;
  /** The inbox as the server rendered the page: shown from the first paint, never a dash (issue 23). */
  initialInbox: InboxSummary;
  renderedAt: number;
  className?: string;
}) {
  const live = useLiveTopics(["inbox"]);
  const { data: inbox } = useQuery({
    queryKey: inboxSummaryQueryKey,
    queryFn: async ({ signal }): Promise<InboxSummary> => {
      const d = await fetchInbox(signal);
      return { count: d.count, oldestAt: d.items[0]?.createdAt ?? null };
    },
    initialData: initialInbox,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const now = useNow(1000);
  const oldest = inbox.oldestAt === null ? "none" : waitedLabel(now - Date.parse(inbox.oldestAt));
  return (
    <div
      className={cn(
        "grid grid-cols-2 gap-2 sm:grid-cols-3 md:gap-4 lg:grid-cols-[1fr_1fr_1.3fr_1.3fr_1fr]",
        className,
      )}
    >
      <Figure value={String(running)} label="running" tone="running" />
      <Figure value={String(stale)} label="stale" tone={stale > 0 ? "stale" : undefined} />
      <Figure
        name="inbox"
        value={String(inbox.count)}
        label={`in the inbox · oldest ${oldest}`}
        tone={inbox.count ? "stale" : undefined}
      />
      <Figure
        value={`${hostsOnline}/${hosts}`}
        label="hosts online"
        tone={hostsOnline < hosts ? "stale" : undefined}
      />
      <Figure
        value={String(alerts)}
        label={alerts === 1 ? "alert" : "alerts"}
        tone={alerts > 0 ? "failed" : undefined}
      />
    </div>
  );
}

/** The wall's clock, in the person's time zone. */
export function WallClock() {
  const now = useNow();
  const zone = useTimeZone();
  return <span className="text-2xl font-semibold tabular-nums">{formatClock(now, zone)}</span>;
}

/** Esc leaves wall mode (a keyboard listener: an external system, hence the effect). */
export function WallExitOnEscape() {
  const router = useRouter();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") router.push("/");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [router]);
  return null;
}
