import Link from "next/link";
import type { ReactNode } from "react";

import { Sparkline } from "@/components/charts/sparkline";
import { formatBytes, formatMiB, formatPct } from "@/components/pipelines/units";
import { RelativeTime } from "@/components/runs/relative-time";
import { Card } from "@/components/ui/card";
import { byteColumnFormat } from "@/lib/column-format";
import { formatNumber } from "@/lib/format";
import { hostPath, runsPath } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { GpuView, HostView } from "@/lib/view-models/hosts";

import { Meter } from "./gpu-bars";
import { gpuSummary } from "./gpu-summary";
import { HostStateBadge } from "./host-state-badge";

const HOUR_MS = 60 * 60 * 1000;

/** One GPU as a dense row: index, utilisation meter and %, memory used / total, temperature. */
export function GpuRow({ gpu }: { gpu: GpuView }) {
  const memPct =
    gpu.memUsedMiB !== null && gpu.memTotalMiB ? (gpu.memUsedMiB / gpu.memTotalMiB) * 100 : null;
  return (
    <div className="grid grid-cols-[3.25rem_minmax(3rem,1fr)_2.75rem_minmax(6.5rem,auto)_3rem] items-center gap-x-2 text-xs tabular-nums">
      <span className="text-muted-fg">GPU {gpu.index}</span>
      <Meter pct={gpu.utilPct} />
      <span className="text-right font-medium">{formatPct(gpu.utilPct)}</span>
      <span
        className="text-right text-muted-fg"
        title={memPct !== null ? `${formatPct(memPct)} of GPU memory in use` : undefined}
      >
        {gpu.memUsedMiB === null ? "—" : formatNumber(gpu.memUsedMiB / 1024, 1)} /{" "}
        {formatMiB(gpu.memTotalMiB)}
      </span>
      <span
        className={cn(
          "text-right",
          gpu.tempC !== null && gpu.tempC >= 85 ? "font-medium text-failed" : "text-muted-fg",
        )}
      >
        {gpu.tempC === null ? "—" : `${Math.round(gpu.tempC)} °C`}
      </span>
    </div>
  );
}

function Fact({ label, children, title }: { label: string; children: ReactNode; title?: string }) {
  return (
    <div className="min-w-0" title={title}>
      <dt className="text-[11px] text-muted-fg">{label}</dt>
      <dd className="truncate text-[13px] tabular-nums">{children}</dd>
    </div>
  );
}

/** "412 / 1,005 GB": a part and its total in the total's one unit (never "1.0 TB" beside "1005.4 GB"). */
function BytesOfTotal({
  part,
  total,
  className,
}: {
  part: number | null | undefined;
  total: number | null | undefined;
  className?: string;
}) {
  if (!total) return <span className={className}>{formatBytes(part)}</span>;
  // The unit that fits the smaller of the two (a part under 1 % of the total does not drag it down to MB).
  const col = byteColumnFormat([Math.max(part ?? 0, total / 100), total]);
  return (
    <>
      <span className={className}>{col.format(part)}</span>
      <span className="text-muted-fg">
        {" "}
        / {col.format(total)} {col.unit}
      </span>
    </>
  );
}

/** CPU, RAM, disk and load of a host as a compact definition list. */
export function HostFacts({ host, className }: { host: HostView; className?: string }) {
  const f = host.facts;
  const ramPct =
    f?.ramUsedBytes != null && f.ramTotalBytes ? (f.ramUsedBytes / f.ramTotalBytes) * 100 : null;
  const diskPct =
    f?.diskFreeBytes != null && f.diskTotalBytes
      ? (f.diskFreeBytes / f.diskTotalBytes) * 100
      : null;
  return (
    <dl className={cn("grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-4", className)}>
      <Fact label="CPU">
        {formatPct(f?.cpuPct)}
        {f?.cpuCount ? <span className="text-muted-fg"> of {f.cpuCount}</span> : null}
      </Fact>
      <Fact label="Load (1 min)">{formatNumber(f?.loadAvg1)}</Fact>
      <Fact label="RAM used" title={ramPct !== null ? `${formatPct(ramPct)} used` : undefined}>
        <BytesOfTotal part={f?.ramUsedBytes} total={f?.ramTotalBytes} />
      </Fact>
      <Fact label="Disk free" title={diskPct !== null ? `${formatPct(diskPct)} free` : undefined}>
        <BytesOfTotal
          part={f?.diskFreeBytes}
          total={f?.diskTotalBytes}
          className={cn(diskPct !== null && diskPct < 5 && "font-medium text-failed")}
        />
      </Fact>
    </dl>
  );
}

/** Last heartbeat, relative (absolute on hover), or a note that the host never sent one. */
export function HeartbeatAge({ host, className }: { host: HostView; className?: string }) {
  if (!host.lastHeartbeatAt)
    return <span className={cn("text-muted-fg", className)}>no heartbeat yet</span>;
  return (
    <span className={cn("text-muted-fg", className)}>
      heartbeat{" "}
      <RelativeTime
        iso={host.lastHeartbeatAt}
        className={host.state === "online" ? undefined : "font-medium text-foreground"}
      />
    </span>
  );
}

/** A host on the /hosts page: state, GPUs with util/memory/temperature, last-hour sparklines, CPU/RAM/disk, running runs. */
export function HostCard({ host, asOf }: { host: HostView; asOf: string }) {
  const summary = gpuSummary(host.facts);
  const toMs = Date.parse(asOf);
  const dim = host.state !== "online";
  return (
    <Card className="flex min-w-0 flex-col">
      <div className="flex items-center gap-2 border-b border-border px-4 py-2">
        <Link
          href={hostPath(host.name)}
          className="min-w-0 truncate rounded-sm text-sm font-semibold hover:underline max-md:wrap-anywhere max-md:whitespace-normal"
          title={host.name}
        >
          {host.name}
        </Link>
        <HostStateBadge state={host.state} />
        <HeartbeatAge host={host} className="ml-auto text-xs" />
      </div>
      {/* A quiet host's last readings: bars and charts dimmed, text kept at full contrast (WCAG AA, issue 25). */}
      <div className={cn("grid gap-3 p-4", dim && "[&_[role=img]]:opacity-60 [&_svg]:opacity-60")}>
        {summary ? (
          <div className="grid gap-1.5">
            <div className="flex items-baseline justify-between text-xs">
              <span className="font-medium">{summary.label}</span>
              <span className="text-muted-fg tabular-nums">
                {formatPct(summary.utilPct)} util · {formatPct(summary.memPct)} mem
              </span>
            </div>
            {host.facts?.gpus.map((g) => (
              <GpuRow key={g.index} gpu={g} />
            ))}
          </div>
        ) : (
          <p className="text-xs text-muted-fg">
            {host.facts
              ? "No GPUs reported."
              : "No hardware facts reported yet (heartbeats carry them)."}
          </p>
        )}
        {host.lastHour.length > 0 && (
          <div className="grid grid-cols-2 gap-3">
            <div>
              <div className="text-[11px] text-muted-fg">GPU util, last hour</div>
              <Sparkline
                points={host.lastHour.map((p) => ({ tMs: p.tMs, value: p.gpuUtilPct }))}
                fromMs={toMs - HOUR_MS}
                toMs={toMs}
                label={`${host.name} GPU utilisation over the last hour`}
              />
            </div>
            <div>
              <div className="text-[11px] text-muted-fg">GPU memory, last hour</div>
              <Sparkline
                points={host.lastHour.map((p) => ({ tMs: p.tMs, value: p.gpuMemPct }))}
                fromMs={toMs - HOUR_MS}
                toMs={toMs}
                color="var(--chart-3)"
                label={`${host.name} GPU memory use over the last hour`}
              />
            </div>
          </div>
        )}
        <HostFacts host={host} />
      </div>
      <div className="mt-auto border-t border-border px-4 py-2 text-xs text-muted-fg">
        {host.runningRuns > 0 ? (
          <Link href={runsPath({ host: host.name })} className="text-link hover:underline">
            {host.runningRuns} running run{host.runningRuns === 1 ? "" : "s"}
          </Link>
        ) : (
          "No running runs"
        )}
        {host.state === "offline" && host.runningRuns > 0 && (
          <span className="ml-2 font-medium text-failed">host offline: check those runs</span>
        )}
      </div>
    </Card>
  );
}
