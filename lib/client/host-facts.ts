import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";

import type { HostFacts } from "@/lib/protocol";

/**
 * Host readings for `heartbeat` frames (`hostFacts` in lib/protocol/frames.ts): GPUs from
 * `nvidia-smi` when present, CPU % from /proc/stat deltas, RAM from /proc/meminfo, disk from
 * `fs.statfs`. Each source that is missing (no GPU, not Linux) is simply left out.
 */

/** GPU fields `nvidia-smi` is asked for, in this order. */
export const NVIDIA_SMI_ARGS = [
  "--query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw",
  "--format=csv,noheader,nounits",
];

type GpuFacts = NonNullable<HostFacts["gpus"]>[number];

/**
 * Parses `nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw
 * --format=csv,noheader,nounits` output (NVIDIA driver 4xx-5xx): one GPU per line, e.g.
 * `0, NVIDIA RTX A6000, 35, 12034, 49140, 45, 120.50`. Units: percent, MiB, MiB, °C, W. Values
 * `[N/A]`/`[Not Supported]` are left out; lines that do not start with an index are skipped.
 */
export function parseNvidiaSmi(text: string): GpuFacts[] {
  const gpus: GpuFacts[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const fields = raw.split(",").map((f) => f.trim());
    if (fields.length < 7 || !/^\d+$/.test(fields[0]!)) continue;
    // A GPU name could contain a comma: the first field is the index, the last five are numbers.
    const name = fields.slice(1, -5).join(", ");
    const at = (i: number) => readingOrNull(fields[fields.length - 5 + i]);
    const [util, memUsed, memTotal, temp, power] = [at(0), at(1), at(2), at(3), at(4)];
    const gpu: GpuFacts = { index: Number(fields[0]) };
    if (name) gpu.name = name;
    if (util !== null && util >= 0 && util <= 100) gpu.utilPct = util;
    if (memUsed !== null && memUsed >= 0) gpu.memUsedMiB = memUsed;
    if (memTotal !== null && memTotal >= 0) gpu.memTotalMiB = memTotal;
    if (temp !== null && temp >= -50 && temp <= 200) gpu.tempC = temp;
    if (power !== null && power >= 0) gpu.powerW = power;
    gpus.push(gpu);
  }
  return gpus;
}

function readingOrNull(field: string | undefined): number | null {
  if (!field || field.startsWith("[")) return null;
  const n = Number(field);
  return Number.isFinite(n) ? n : null;
}

/** Aggregate CPU jiffies from /proc/stat's `cpu` line: `busy` (all but idle + iowait) and `total`. */
export interface CpuTimes {
  busy: number;
  total: number;
}

/**
 * Reads the aggregate `cpu` line of Linux /proc/stat (`cpu user nice system idle iowait irq softirq
 * steal …`, in jiffies). Returns null when there is none.
 */
export function parseProcStat(text: string): CpuTimes | null {
  const line = text.split("\n").find((l) => /^cpu\s/.test(l));
  if (!line) return null;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  if (values.length < 4 || values.some((v) => !Number.isFinite(v))) return null;
  // guest and guest_nice (fields 9, 10) are already counted in user and nice.
  const counted = values.slice(0, 8);
  const total = counted.reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

/** CPU utilisation in percent (0-100) between two /proc/stat readings; null when no time passed. */
export function cpuPercent(before: CpuTimes, after: CpuTimes): number | null {
  const total = after.total - before.total;
  if (!(total > 0)) return null;
  const pct = ((after.busy - before.busy) / total) * 100;
  return Math.min(100, Math.max(0, Math.round(pct * 10) / 10));
}

/**
 * Reads Linux /proc/meminfo: `MemTotal` and used = MemTotal − MemAvailable, in bytes (the file is
 * in kB). Returns null when either line is missing.
 */
export function parseMeminfo(text: string): { ramTotalBytes: number; ramUsedBytes: number } | null {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, "m").exec(text);
    return m ? Number(m[1]) * 1024 : null;
  };
  const total = kb("MemTotal");
  const available = kb("MemAvailable");
  if (total === null || available === null) return null;
  return { ramTotalBytes: total, ramUsedBytes: Math.max(0, total - available) };
}

/** Where host facts come from; every field is injectable for tests. */
export interface HostFactsSources {
  /** Runs a command and resolves with its stdout; rejects when it cannot run or fails. */
  exec?: (file: string, args: string[]) => Promise<string>;
  /** Reads a text file (default fs.readFile). */
  readFile?: (file: string) => Promise<string>;
  /** Filesystem whose free space is reported (default `/`). */
  diskPath?: string;
}

/**
 * Collects host facts; keeps the previous /proc/stat reading so each call reports the CPU % since
 * the last one (the first call reports none, unless `primeCpu()` ran before).
 */
export class HostFactsCollector {
  private lastCpu: CpuTimes | null = null;
  private readonly exec: (file: string, args: string[]) => Promise<string>;
  private readonly readFile: (file: string) => Promise<string>;

  constructor(private readonly sources: HostFactsSources = {}) {
    this.exec = sources.exec ?? execText;
    this.readFile = sources.readFile ?? ((f) => fs.readFile(f, "utf8"));
  }

  /** Takes a first CPU reading so the next `collect()` can report CPU %. */
  async primeCpu(): Promise<void> {
    this.lastCpu = await this.readCpu();
  }

  /** Current facts; sources that fail are left out (never throws for a missing nvidia-smi or /proc). */
  async collect(): Promise<HostFacts & { hostname: string }> {
    const facts: HostFacts & { hostname: string } = {
      hostname: os.hostname(),
      cpuCount: Math.max(1, os.cpus().length),
    };
    const [gpus, cpu, mem, disk] = await Promise.all([
      this.exec("nvidia-smi", NVIDIA_SMI_ARGS).then(parseNvidiaSmi, () => null),
      this.readCpu(),
      this.readFile("/proc/meminfo").then(parseMeminfo, () => null),
      fs.statfs(this.sources.diskPath ?? "/").catch(() => null),
    ]);
    if (gpus && gpus.length) facts.gpus = gpus;
    if (cpu && this.lastCpu) {
      const pct = cpuPercent(this.lastCpu, cpu);
      if (pct !== null) facts.cpuPct = pct;
    }
    if (cpu) this.lastCpu = cpu;
    if (mem) Object.assign(facts, mem);
    else
      Object.assign(facts, {
        ramTotalBytes: os.totalmem(),
        ramUsedBytes: Math.max(0, os.totalmem() - os.freemem()),
      });
    if (disk) {
      facts.diskFreeBytes = Math.min(Number.MAX_SAFE_INTEGER, disk.bavail * disk.bsize);
      facts.diskTotalBytes = Math.min(Number.MAX_SAFE_INTEGER, disk.blocks * disk.bsize);
    }
    const load = os.loadavg()[0];
    if (load !== undefined && Number.isFinite(load) && load >= 0)
      facts.loadAvg1 = Math.round(load * 100) / 100;
    return facts;
  }

  private async readCpu(): Promise<CpuTimes | null> {
    return this.readFile("/proc/stat").then(parseProcStat, () => null);
  }
}

/** Runs `file args` with a 10 s timeout; resolves with stdout. */
function execText(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 10_000, maxBuffer: 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}
