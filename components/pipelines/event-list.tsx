import {
  CircleCheck,
  CircleX,
  Info,
  OctagonAlert,
  TriangleAlert,
  type LucideIcon,
} from "lucide-react";
import Link from "next/link";

import { RelativeTime } from "@/components/runs/relative-time";
import { groupEvents, repeatLabel, singleEventGroups } from "@/lib/metrics/event-groups";
import { runPath } from "@/lib/paths";
import { cn } from "@/lib/utils";

import { alertTitle, isResolution } from "./alerts";

/** An event as the list shows it; `runId`/`runName` when events of several runs are mixed. */
export interface EventItem {
  id: string;
  ts: string;
  level: string;
  message: string;
  code: string | null;
  runId?: number;
  runName?: string;
}

const LEVELS: Record<string, { icon: LucideIcon; className: string; label: string }> = {
  error: { icon: CircleX, className: "text-failed", label: "error" },
  warn: { icon: TriangleAlert, className: "text-stale", label: "warning" },
  info: { icon: Info, className: "text-muted-fg", label: "info" },
  debug: { icon: Info, className: "text-muted-fg/70", label: "debug" },
};

/**
 * Events newest first (the caller orders them): errors red, warnings amber, each with an icon and
 * its level for screen readers; server alerts (a `code`) are highlighted with their title. With
 * `grouped`, repeats (same run, level, code and message but for numbers) within 10 min are one line
 * marked "9× over 4m 35s" (lib/metrics/event-groups.ts decides both); `limit` caps the lines shown.
 */
export function EventList({
  events,
  className,
  wall = false,
  grouped = false,
  limit,
  emptyText = "No events yet.",
  scrollLabel,
}: {
  events: readonly EventItem[];
  className?: string;
  wall?: boolean;
  grouped?: boolean;
  limit?: number;
  emptyText?: string;
  /** Set when `className` lets the list scroll: it becomes a keyboard-focusable region with this name (axe scrollable-region-focusable). */
  scrollLabel?: string;
}) {
  if (events.length === 0)
    return <p className={cn("px-4 py-3 text-sm text-muted-fg", className)}>{emptyText}</p>;
  const lines = (grouped ? groupEvents(events) : singleEventGroups(events)).slice(0, limit);
  return (
    <ul
      className={cn("divide-y divide-border", className)}
      tabIndex={scrollLabel ? 0 : undefined}
      aria-label={scrollLabel}
    >
      {lines.map((line) => {
        const e = line.latest;
        const repeat = repeatLabel(line);
        const resolved = isResolution(e.code);
        const alert = e.code !== null && !resolved;
        const lvl = LEVELS[e.level] ?? LEVELS.info!;
        const Icon = alert ? OctagonAlert : resolved ? CircleCheck : lvl.icon;
        return (
          <li
            key={e.id}
            data-level={e.level}
            className={cn(
              "flex gap-2.5 px-4",
              wall ? "py-2 text-sm" : "py-2 text-[13px]",
              alert && (e.level === "error" ? "bg-failed-bg/60" : "bg-stale-bg/50"),
              !alert && e.level === "error" && "bg-failed-bg/25",
            )}
          >
            <Icon
              aria-label={alert ? "alert" : resolved ? "resolved" : lvl.label}
              className={cn(
                "mt-0.5 shrink-0",
                wall ? "size-5" : "size-4",
                resolved ? "text-succeeded" : lvl.className,
              )}
            />
            <div className="min-w-0 flex-1">
              <div
                className={cn(
                  "flex flex-wrap items-baseline gap-x-2 text-muted-fg",
                  wall ? "text-sm" : "text-xs",
                )}
              >
                <RelativeTime iso={e.ts} className="tabular-nums" />
                {repeat !== null && (
                  <span
                    className="font-semibold text-foreground tabular-nums"
                    data-testid="event-repeat"
                  >
                    {repeat}
                  </span>
                )}
                {e.runId !== undefined && (
                  <Link
                    href={runPath(e.runId)}
                    title={e.runName}
                    data-wall-clamp={wall ? "" : undefined}
                    className={cn(
                      "font-medium text-foreground hover:underline",
                      wall
                        ? "line-clamp-1 min-w-0 break-words"
                        : "max-w-64 truncate max-md:max-w-full max-md:break-words max-md:whitespace-normal",
                    )}
                  >
                    {e.runName}
                  </Link>
                )}
                {e.code && (
                  <span
                    className={cn(
                      "font-medium",
                      alert
                        ? e.level === "error"
                          ? "text-failed"
                          : "text-stale"
                        : "text-succeeded",
                    )}
                  >
                    {alertTitle(e.code)}
                  </span>
                )}
              </div>
              {/* On the wall a message is cut to two lines (a traceback would push the hosts off a TV); the tooltip keeps it whole. */}
              <p
                title={wall ? e.message : undefined}
                data-wall-clamp={wall ? "" : undefined}
                className={cn(
                  "break-words",
                  wall && "line-clamp-2",
                  e.level === "error" ? "text-failed" : "text-foreground",
                  alert && "font-medium",
                )}
              >
                {e.message}
              </p>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
