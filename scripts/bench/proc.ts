import { execFileSync } from "node:child_process";
import fs from "node:fs";

/** /proc readings for the bench scenarios: CPU and memory of a process tree and of the machine (Linux only; every reader returns null elsewhere). */

/** Clock ticks per second (`getconf CLK_TCK`, 100 when unknown): the unit of /proc CPU times. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A /proc file's text, or null when it cannot be read (not Linux, process gone). */
export function readProc(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** VmRSS and VmHWM (peak) of `pid` in KiB. */
export function memoryKb(pid: number): { rssKb: number; hwmKb: number } | null {
  const text = readProc(`/proc/${pid}/status`);
  if (!text) return null;
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN);
  return { rssKb: field("VmRSS"), hwmKb: field("VmHWM") };
}

/** utime, stime, cutime, cstime of `pid`, in seconds. */
function cpuTimes(pid: number): { self: number; reapedChildren: number } | null {
  const text = readProc(`/proc/${pid}/stat`);
  if (!text) return null;
  // Fields after the parenthesised command name (which may contain spaces).
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const f = (i: number) => Number(rest[i - 3] ?? 0); // field numbers as in proc(5)
  return { self: (f(14) + f(15)) / CLK_TCK, reapedChildren: (f(16) + f(17)) / CLK_TCK };
}

function childrenOf(pid: number): number[] {
  const text = readProc(`/proc/${pid}/task/${pid}/children`);
  return text ? text.trim().split(/\s+/).filter(Boolean).map(Number) : [];
}

/** Pids of every live descendant of `pid` (children first, depth first). */
export function descendantsOf(pid: number): number[] {
  const out: number[] = [];
  for (const c of childrenOf(pid)) out.push(c, ...descendantsOf(c));
  return out;
}

/** CPU seconds used by `pid`, its live descendants and its exited (reaped) children. */
export function treeCpuS(pid: number): number | null {
  const root = cpuTimes(pid);
  if (!root) return null;
  let total = root.self + root.reapedChildren;
  for (const d of descendantsOf(pid)) total += cpuTimes(d)?.self ?? 0;
  return total;
}

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
export function machineTicks(): { busy: number; total: number } | null {
  const line = readProc("/proc/stat")?.split("\n")[0];
  if (!line?.startsWith("cpu ")) return null;
  const n = line.trim().split(/\s+/).slice(1).map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0); // guest time is already in user/nice
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { busy: total - idle, total };
}
