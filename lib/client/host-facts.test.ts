import { describe, expect, test } from "vitest";

import { hostFacts } from "@/lib/protocol";

import {
  cpuPercent,
  HostFactsCollector,
  NVIDIA_SMI_ARGS,
  parseMeminfo,
  parseNvidiaSmi,
  parseProcStat,
} from "./host-facts";

// Output of `nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw
// --format=csv,noheader,nounits` on a 2x RTX A6000 box (driver 550) and on a GPU that reports no power.
const A6000_X2 = `0, NVIDIA RTX A6000, 97, 43210, 49140, 78, 287.41
1, NVIDIA RTX A6000, 0, 4, 49140, 31, 22.10
`;
const NO_POWER = "0, Tesla K80, 12, 100, 11441, 40, [N/A]\n";
const PROC_STAT_1 =
  "cpu  1000 0 500 8000 100 0 0 0 0 0\ncpu0 500 0 250 4000 50 0 0 0 0 0\nintr 1 2 3\n";
const PROC_STAT_2 = "cpu  1600 0 700 8600 200 0 0 0 0 0\ncpu0 800 0 350 4300 100 0 0 0 0 0\n";
const MEMINFO =
  "MemTotal:       65842852 kB\nMemFree:         1234567 kB\nMemAvailable:   50000000 kB\nBuffers:          100 kB\n";

describe("nvidia-smi", () => {
  test("parses every GPU with units from the query", () => {
    expect(parseNvidiaSmi(A6000_X2)).toEqual([
      {
        index: 0,
        name: "NVIDIA RTX A6000",
        utilPct: 97,
        memUsedMiB: 43210,
        memTotalMiB: 49140,
        tempC: 78,
        powerW: 287.41,
      },
      {
        index: 1,
        name: "NVIDIA RTX A6000",
        utilPct: 0,
        memUsedMiB: 4,
        memTotalMiB: 49140,
        tempC: 31,
        powerW: 22.1,
      },
    ]);
    expect(NVIDIA_SMI_ARGS[0]).toContain("power.draw");
  });

  test("leaves out [N/A] readings, skips junk lines, keeps a comma in a name", () => {
    expect(parseNvidiaSmi(NO_POWER)).toEqual([
      { index: 0, name: "Tesla K80", utilPct: 12, memUsedMiB: 100, memTotalMiB: 11441, tempC: 40 },
    ]);
    expect(
      parseNvidiaSmi(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
      ),
    ).toEqual([]);
    expect(parseNvidiaSmi("3, Weird, Inc. GPU, 1, 2, 3, 4, 5\n")).toEqual([
      {
        index: 3,
        name: "Weird, Inc. GPU",
        utilPct: 1,
        memUsedMiB: 2,
        memTotalMiB: 3,
        tempC: 4,
        powerW: 5,
      },
    ]);
  });

  test("parsed GPUs satisfy the protocol's hostFacts schema", () => {
    expect(
      hostFacts.safeParse({ gpus: parseNvidiaSmi(A6000_X2 + NO_POWER.replace(/^0/, "2")) }).success,
    ).toBe(true);
  });
});

describe("/proc readings", () => {
  test("CPU % from two /proc/stat readings (idle and iowait are not busy)", () => {
    const a = parseProcStat(PROC_STAT_1)!;
    const b = parseProcStat(PROC_STAT_2)!;
    expect(a).toEqual({ busy: 1500, total: 9600 });
    // busy +800 of total +1500
    expect(cpuPercent(a, b)).toBe(53.3);
    expect(cpuPercent(a, a)).toBeNull();
    expect(parseProcStat("nothing here")).toBeNull();
  });

  test("RAM from /proc/meminfo in bytes: used = total − available", () => {
    expect(parseMeminfo(MEMINFO)).toEqual({
      ramTotalBytes: 65842852 * 1024,
      ramUsedBytes: (65842852 - 50000000) * 1024,
    });
    expect(parseMeminfo("MemTotal: 10 kB\n")).toBeNull();
  });
});

describe("HostFactsCollector", () => {
  test("with injected sources: GPUs, CPU % since the last reading, RAM, disk of the given path", async () => {
    const stats = [PROC_STAT_1, PROC_STAT_2];
    const collector = new HostFactsCollector({
      exec: async (file) => (file === "nvidia-smi" ? A6000_X2 : ""),
      readFile: async (f) => (f === "/proc/stat" ? stats.shift()! : MEMINFO),
      diskPath: "/",
    });
    await collector.primeCpu();
    const facts = await collector.collect();
    expect(facts.gpus).toHaveLength(2);
    expect(facts.cpuPct).toBe(53.3);
    expect(facts.ramTotalBytes).toBe(65842852 * 1024);
    expect(facts.diskTotalBytes).toBeGreaterThan(0);
    expect(facts.diskFreeBytes).toBeLessThanOrEqual(facts.diskTotalBytes!);
    expect(hostFacts.safeParse(facts).success).toBe(true);
  });

  test("on this machine: no nvidia-smi is no error; /proc and statfs give CPU, RAM and disk", async () => {
    const collector = new HostFactsCollector({
      exec: () =>
        Promise.reject(Object.assign(new Error("spawn nvidia-smi ENOENT"), { code: "ENOENT" })),
    });
    const facts = await collector.collect();
    expect(facts.gpus).toBeUndefined();
    expect(facts.cpuPct).toBeUndefined(); // one reading only
    expect(facts.ramTotalBytes).toBeGreaterThan(0);
    expect(facts.diskFreeBytes).toBeGreaterThan(0);
    expect(facts.cpuCount).toBeGreaterThan(0);
    const again = await collector.collect();
    expect(again.cpuPct === undefined || (again.cpuPct >= 0 && again.cpuPct <= 100)).toBe(true);
    expect(hostFacts.safeParse(again).success).toBe(true);
  });
});
