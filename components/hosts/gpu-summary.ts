import type { GpuView, HostFactsView } from "@/lib/view-models/hosts";

/** GPUs of a host summed up: "4× RTX A6000", mean utilisation %, memory used % over all GPUs. */
export interface GpuSummary {
  count: number;
  label: string;
  utilPct: number | null;
  memPct: number | null;
  memUsedMiB: number | null;
  memTotalMiB: number | null;
}

function shortName(name: string | null): string {
  return (name ?? "GPU").replace(/^NVIDIA\s+/i, "").replace(/^GeForce\s+/i, "");
}

/** Groups GPUs by model ("4× RTX A6000", "2× H100 + 1× A10"); mean util and memory % where reported; null without GPUs. */
export function gpuSummary(facts: HostFactsView | null): GpuSummary | null {
  const gpus: GpuView[] = facts?.gpus ?? [];
  if (gpus.length === 0) return null;
  const byName = new Map<string, number>();
  for (const g of gpus) byName.set(shortName(g.name), (byName.get(shortName(g.name)) ?? 0) + 1);
  const label = [...byName].map(([n, c]) => `${c}× ${n}`).join(" + ");
  const utils = gpus.map((g) => g.utilPct).filter((v): v is number => v !== null);
  const withMem = gpus.filter(
    (g) => g.memUsedMiB !== null && g.memTotalMiB !== null && g.memTotalMiB > 0,
  );
  const used = withMem.reduce((s, g) => s + (g.memUsedMiB ?? 0), 0);
  const total = withMem.reduce((s, g) => s + (g.memTotalMiB ?? 0), 0);
  return {
    count: gpus.length,
    label,
    utilPct: utils.length ? utils.reduce((a, b) => a + b, 0) / utils.length : null,
    memPct: total > 0 ? (used / total) * 100 : null,
    memUsedMiB: withMem.length ? used : null,
    memTotalMiB: withMem.length ? total : null,
  };
}
