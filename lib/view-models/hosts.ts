/**
 * Read models of hosts: liveness, the latest hardware facts from heartbeats, and the last hour of
 * readings for the small charts. Plain JSON shapes; chart times are epoch ms (`tMs`).
 */
import type { RunSummary } from "@/lib/view-models";

/** Host liveness: `stale` after 3 missed heartbeats, `offline` after max(5 min, 3 intervals) or when never heard from. */
export type HostStateView = "online" | "stale" | "offline";

/** One GPU's latest readings (nvidia-smi units). */
export interface GpuView {
  index: number;
  name: string | null;
  /** Utilisation, percent 0–100. */
  utilPct: number | null;
  memUsedMiB: number | null;
  memTotalMiB: number | null;
  tempC: number | null;
  powerW: number | null;
}

/** A host's latest facts, typed where the protocol defines them. */
export interface HostFactsView {
  gpus: GpuView[];
  cpuPct: number | null;
  cpuCount: number | null;
  loadAvg1: number | null;
  ramUsedBytes: number | null;
  ramTotalBytes: number | null;
  diskFreeBytes: number | null;
  diskTotalBytes: number | null;
}

/** A reading of the host summed up over its GPUs at one time (one chart point). */
export interface HostSamplePoint {
  tMs: number;
  /** Mean GPU utilisation over the host's GPUs, percent. */
  gpuUtilPct: number | null;
  /** GPU memory used over all GPUs as a percent of their total. */
  gpuMemPct: number | null;
  cpuPct: number | null;
  /** RAM used as a percent of total. */
  ramPct: number | null;
}

/** One row of the host list. */
export interface HostView {
  name: string;
  state: HostStateView;
  /** Null when the host never sent a heartbeat (it only ran work or holds a token). */
  lastHeartbeatAt: string | null;
  heartbeatIntervalS: number;
  facts: HostFactsView | null;
  /** Runs on this host whose stored status is running (stale ones included). */
  runningRuns: number;
  /** Last hour, one point per minute (means), oldest first; on the host page (HostDetailView) the chosen window instead. */
  lastHour: HostSamplePoint[];
}

/** The host list (`GET /api/hosts`), by name. */
export interface HostListView {
  asOf: string;
  hosts: HostView[];
}

/** One GPU's readings over time (one chart point). */
export interface GpuSamplePoint {
  tMs: number;
  utilPct: number | null;
  memUsedMiB: number | null;
  tempC: number | null;
}

/** One GPU's last hour. */
export interface GpuSeriesView {
  index: number;
  name: string | null;
  memTotalMiB: number | null;
  points: GpuSamplePoint[];
}

/** One host with its per-GPU history and its runs (`GET /api/hosts/:name`). */
export interface HostDetailView extends HostView {
  asOf: string;
  /** The charts' window (epoch ms): the last hour by default, or the range chosen in the URL. */
  windowFromMs: number;
  windowToMs: number;
  /** Averaging bucket of `gpuSeries` and of `lastHour` (CPU/RAM) over the window, seconds. */
  gpuBucketS: number;
  hostBucketS: number;
  /** Per GPU over the window, in 30 s buckets (wider for long windows; means), oldest first. */
  gpuSeries: GpuSeriesView[];
  /** Latest runs on this host, newest first. */
  runs: RunSummary[];
}

const WALL_STATE_ORDER: Record<HostStateView, number> = { online: 0, stale: 1, offline: 2 };

/**
 * The hosts a wall screen lists: online first, then stale, then offline (stable within a state),
 * at most `maxRows`; `hidden` counts the rest and `hiddenOffline` how many of those are offline.
 * A room reads the working hosts; a long tail of retired ones must not push the events off the screen.
 */
export function wallHostRows(
  hosts: readonly HostView[],
  maxRows: number,
): { shown: HostView[]; hidden: number; hiddenOffline: number } {
  const ordered = hosts
    .map((h, i) => ({ h, i }))
    .sort((a, b) => WALL_STATE_ORDER[a.h.state] - WALL_STATE_ORDER[b.h.state] || a.i - b.i)
    .map(({ h }) => h);
  const shown = ordered.slice(0, Math.max(0, maxRows));
  const rest = ordered.slice(shown.length);
  return {
    shown,
    hidden: rest.length,
    hiddenOffline: rest.filter((h) => h.state === "offline").length,
  };
}
