import Link from "next/link";

import { Sparkline } from "@/components/charts/sparkline";
import { formatPct } from "@/components/pipelines/units";
import { hostPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { HostView } from "@/lib/view-models/hosts";

import { GpuBars } from "./gpu-bars";
import { gpuSummary } from "./gpu-summary";
import { HeartbeatAge } from "./host-card";
import { HostStateBadge } from "./host-state-badge";

const HOUR_MS = 60 * 60 * 1000;

/** A host in one dense line for the overview: state, name, GPUs (one bar each), mean util / memory, last-hour util sparkline (not on the wall), heartbeat age. */
export function HostLine({
  host,
  asOf,
  wall = false,
}: {
  host: HostView;
  asOf: string;
  wall?: boolean;
}) {
  const s = gpuSummary(host.facts);
  const toMs = Date.parse(asOf);
  return (
    <li
      data-testid="host-line"
      data-state={host.state}
      className={cn(
        "grid grid-cols-[minmax(0,1fr)_auto] items-center gap-x-3 px-4",
        wall ? "gap-y-0.5 py-2" : "gap-y-1 py-2",
      )}
    >
      <div className="flex min-w-0 items-center gap-2">
        <HostStateBadge
          state={host.state}
          className={wall ? "h-auto py-0.5 text-sm leading-tight [&_svg]:size-4" : undefined}
        />
        <Link
          href={hostPath(host.name)}
          title={host.name}
          className={cn(
            "min-w-0 rounded-sm font-medium hover:underline",
            wall
              ? "text-base break-words"
              : "truncate text-[13px] max-md:wrap-anywhere max-md:whitespace-normal",
          )}
        >
          {host.name}
        </Link>
        {host.runningRuns > 0 && !wall && (
          <span className="shrink-0 text-xs text-muted-fg tabular-nums">
            · {host.runningRuns} run{host.runningRuns === 1 ? "" : "s"}
          </span>
        )}
      </div>
      {/* A quiet host's last readings are dimmed in their bars only: dimmed text failed WCAG AA contrast (2.24:1, issue 25). */}
      <div
        className={cn(
          "flex items-center justify-end gap-2 tabular-nums",
          wall ? "text-base" : "text-xs",
        )}
        title={host.state !== "online" ? "Last readings before the host went quiet" : undefined}
      >
        {s ? (
          <>
            <GpuBars
              gpus={host.facts?.gpus ?? []}
              height={wall ? 24 : 16}
              className={host.state !== "online" ? "opacity-50" : undefined}
            />
            <span
              className={cn(
                "w-[4.5rem] text-right",
                host.state === "online" ? "text-foreground" : "text-muted-fg",
              )}
              title={`${s.label}: mean utilisation ${formatPct(s.utilPct)}, memory ${formatPct(s.memPct)} used`}
            >
              {formatPct(s.utilPct)} util
            </span>
          </>
        ) : (
          <span className="text-muted-fg">{host.facts ? "no GPUs" : "no facts"}</span>
        )}
      </div>
      {/* On the wall one line of running text that wraps as words do (as flex items the parts each took a line). */}
      <div
        className={cn(
          "min-w-0 text-muted-fg",
          wall ? "col-span-2 text-sm break-words" : "flex items-center gap-2 text-xs",
        )}
      >
        {/* No hover on the wall or a phone: there the GPU model wraps instead of ending in "…" (issue 12). */}
        {host.runningRuns > 0 && wall && (
          <span className="tabular-nums">
            {host.runningRuns} run{host.runningRuns === 1 ? "" : "s"}
            {s && " · "}
          </span>
        )}
        {s && (
          <span
            className={
              wall ? "break-words" : "min-w-0 truncate max-md:break-words max-md:whitespace-normal"
            }
            title={s.label}
          >
            {s.label}
          </span>
        )}
        {s && s.memPct !== null && (
          <span className="shrink-0 tabular-nums">
            {wall ? " · " : "· "}mem {formatPct(s.memPct)}
          </span>
        )}
        {host.state !== "online" && (
          <HeartbeatAge
            host={host}
            className={wall ? "ml-2 tabular-nums" : "ml-auto shrink-0 tabular-nums"}
          />
        )}
      </div>
      {/* Not on the wall: there the GPU model and memory get the whole line (in a narrow column they wrapped to four lines). */}
      {!wall && (
        <div className={cn("w-28", host.state !== "online" && "opacity-50")}>
          {host.lastHour.length > 0 ? (
            <Sparkline
              points={host.lastHour.map((p) => ({ tMs: p.tMs, value: p.gpuUtilPct }))}
              fromMs={toMs - HOUR_MS}
              toMs={toMs}
              height={18}
              label={`${host.name} GPU utilisation over the last hour`}
            />
          ) : null}
        </div>
      )}
    </li>
  );
}
