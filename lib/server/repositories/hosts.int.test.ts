import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { NotFoundError } from "@/lib/server/errors";
import { ingestHarness, type RawFrame } from "@/test/support/ingest";

import { getHost, listHosts } from "./hosts";
import { getOverview } from "./overview";
import type { TokenPrincipal } from "./tokens";

// Hosts and the overview over rows written by the real ingest code: host liveness from heartbeat
// age and period, latest facts, last-hour buckets, and the overview's stale-first run list.

// Each test reports as its own hosts (`principalFor`); the harness's own host never heartbeats.
const { prisma, principalFor, ingestWith, close } = await ingestHarness("hosts-test-harness", {
  prismaMax: 4,
});
afterAll(close);

/** Validates frames like the transports do, then applies them from `principal` as received at `atMs`. @throws on a frame that does not validate or apply. */
const ingestAt = (principal: TokenPrincipal, atMs: number, ...raw: RawFrame[]) =>
  ingestWith({ as: principal, at: atMs }, ...raw);

const NOW = 1_790_000_040_000; // a whole minute since the epoch, so buckets start at NOW − 60 s
const ago = (s: number) => NOW - s * 1000;
const gpu = (index: number, utilPct: number, memUsedMiB: number) => ({
  index,
  name: "NVIDIA RTX A6000",
  utilPct,
  memUsedMiB,
  memTotalMiB: 49_140,
  tempC: 60 + index,
  powerW: 250,
});

describe("hosts", () => {
  test("derive online / stale / offline from heartbeat age and period, with latest facts and per-minute history", async () => {
    const suffix = randomUUID().slice(0, 8);
    const online = await principalFor(`a-online-${suffix}`);
    const stale = await principalFor(`b-stale-${suffix}`);
    const offline = await principalFor(`c-offline-${suffix}`);
    const slow = await principalFor(`d-slow-${suffix}`);
    await principalFor(`e-never-${suffix}`);
    // Tokens that only push agent sessions or plans are no machine to watch: never listed.
    const sessionsOnly = await principalFor(`f-sessions-${suffix}`);
    await ingestAt(sessionsOnly, ago(30), {
      type: "session.todos",
      session: `s-${suffix}`,
      source: "pushed",
      seq: 1,
      ts: ago(30),
      items: [{ content: "write tests", status: "in_progress" }],
    });
    // A host that imported a run but never heartbeats stays listed (offline), with its run.
    const importer = await principalFor(`g-importer-${suffix}`);
    await ingestAt(importer, ago(30), {
      type: "run.start",
      run: `imp-${suffix}`,
      name: "imported",
      kind: "benchmark",
    });

    // Two heartbeats in the minute before NOW (bucket NOW−60 s) and one in the bucket before.
    await ingestAt(online, ago(90), {
      type: "heartbeat",
      ts: ago(90),
      intervalS: 10,
      facts: {
        gpus: [gpu(0, 10, 1000), gpu(1, 30, 3000)],
        cpuPct: 20,
        ramUsedBytes: 64e9,
        ramTotalBytes: 256e9,
      },
    });
    await ingestAt(online, ago(50), {
      type: "heartbeat",
      ts: ago(50),
      intervalS: 10,
      facts: {
        gpus: [gpu(1, 100, 49_140), gpu(0, 80, 20_000)],
        cpuPct: 40,
        ramUsedBytes: 128e9,
        ramTotalBytes: 256e9,
      },
    });
    await ingestAt(online, ago(5), {
      type: "heartbeat",
      ts: ago(5),
      intervalS: 10,
      facts: {
        gpus: [gpu(1, 60, 10_000), gpu(0, 20, 10_000)],
        cpuPct: 60,
        ramUsedBytes: 64e9,
        ramTotalBytes: 256e9,
        diskFreeBytes: 950e9,
        diskTotalBytes: 2e12,
      },
    });
    await ingestAt(stale, ago(40), { type: "heartbeat", ts: ago(40), intervalS: 10 });
    await ingestAt(offline, ago(301), { type: "heartbeat", ts: ago(301), intervalS: 10 });
    // Heartbeats every 200 s: 400 s of silence is two missed beats, not offline yet (3 × 200 s).
    await ingestAt(slow, ago(400), { type: "heartbeat", ts: ago(400), intervalS: 200 });
    await ingestAt(online, ago(5), {
      type: "run.start",
      run: `r-${suffix}`,
      name: "extract",
      kind: "extraction",
    });

    const list = await listHosts(prisma, new Date(NOW));
    const mine = list.hosts.filter((h) => h.name.endsWith(suffix));
    expect(mine.map((h) => [h.name.split("-")[1], h.state, h.runningRuns])).toEqual([
      ["online", "online", 1],
      ["stale", "stale", 0],
      ["offline", "offline", 0],
      ["slow", "online", 0],
      ["importer", "offline", 1],
    ]);
    const overview = await getOverview(prisma, new Date(NOW));
    expect(overview.hosts.map((h) => h.name)).not.toContain(`f-sessions-${suffix}`);
    expect(overview.hosts.map((h) => h.name)).not.toContain(`e-never-${suffix}`);
    const host = mine[0]!;
    expect(host.lastHeartbeatAt).toBe(new Date(ago(5)).toISOString());
    expect(host.facts?.gpus.map((g) => [g.index, g.utilPct, g.memUsedMiB])).toEqual([
      [0, 20, 10_000],
      [1, 60, 10_000],
    ]);
    expect(host.facts).toMatchObject({
      cpuPct: 60,
      ramUsedBytes: 64e9,
      ramTotalBytes: 256e9,
      diskFreeBytes: 950e9,
      diskTotalBytes: 2e12,
      cpuCount: null,
    });
    expect(mine[4]!.lastHeartbeatAt).toBeNull();
    expect(mine[4]!.facts).toBeNull();

    // Per-minute means: the bucket at NOW−120 s holds one heartbeat, NOW−60 s two (4 GPU readings).
    expect(host.lastHour).toEqual([
      {
        tMs: ago(120),
        gpuUtilPct: 20,
        gpuMemPct: (4000 / (2 * 49_140)) * 100,
        cpuPct: 20,
        ramPct: 25,
      },
      {
        tMs: ago(60),
        gpuUtilPct: (100 + 80 + 60 + 20) / 4,
        gpuMemPct: ((49_140 + 20_000 + 20_000) / (4 * 49_140)) * 100,
        cpuPct: 50,
        ramPct: 37.5,
      },
    ]);

    const detail = await getHost(prisma, host.name, new Date(NOW));
    expect(detail.state).toBe("online");
    expect(detail.runs.map((r) => r.name)).toEqual(["extract"]);
    expect(detail.gpuSeries.map((g) => [g.index, g.name, g.memTotalMiB, g.points.length])).toEqual([
      [0, "NVIDIA RTX A6000", 49_140, 3],
      [1, "NVIDIA RTX A6000", 49_140, 3],
    ]);
    expect(
      detail.gpuSeries[1]!.points.map((p) => [p.tMs, p.utilPct, p.memUsedMiB, p.tempC]),
    ).toEqual([
      [ago(90), 30, 3000, 61],
      [ago(60), 100, 49_140, 61],
      [ago(30), 60, 10_000, 61],
    ]);
    await expect(getHost(prisma, "no-such-host")).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("getOverview", () => {
  test("lists stale runs first, then running ones with progress; old stale runs are only counted; finished runs and events follow", async () => {
    const w = await principalFor(`ov-${randomUUID().slice(0, 8)}`);
    const key = (name: string) => `${name}-${randomUUID()}`;
    const running = key("running");
    const quiet = key("quiet");
    const ancient = key("ancient");
    const done = key("done");
    await ingestAt(w, ago(3 * 86_400), {
      type: "run.start",
      run: ancient,
      name: "ancient",
      kind: "generation",
    });
    await ingestAt(w, ago(600), {
      type: "run.start",
      run: quiet,
      name: "quiet",
      kind: "extraction",
      stallAfterS: 240,
    });
    await ingestAt(w, ago(500), {
      type: "run.progress",
      run: quiet,
      bootId: "q",
      ts: ago(500),
      done: 10,
    });
    await ingestAt(w, ago(120), {
      type: "run.start",
      run: running,
      name: "running",
      kind: "extraction",
      total: 1000,
      unit: "samples",
    });
    await ingestAt(w, ago(120), {
      type: "run.progress",
      run: running,
      workerId: "gpu0",
      bootId: "a",
      ts: ago(120),
      done: 0,
    });
    await ingestAt(w, ago(20), {
      type: "run.progress",
      run: running,
      workerId: "gpu0",
      bootId: "a",
      ts: ago(20),
      done: 100,
    });
    await ingestAt(w, ago(20), {
      type: "run.metrics",
      run: running,
      points: [
        { key: "train/loss", step: 10, value: 0.5 },
        { key: "lr", step: 10, value: 1e-4 },
        { key: "train/loss", step: 20, value: 0.25 },
      ],
    });
    await ingestAt(w, ago(10), {
      type: "run.event",
      run: running,
      level: "warn",
      message: "disk almost full",
      ts: ago(10),
    });
    await ingestAt(w, ago(300), { type: "run.start", run: done, name: "done", kind: "benchmark" });
    await ingestAt(w, ago(200), {
      type: "run.end",
      run: done,
      status: "failed",
      error: "OOM",
      exitCode: 137,
    });

    const view = await getOverview(prisma, new Date(NOW));
    expect(view.empty).toBe(false);
    const names = view.active.map((r) => r.name);
    expect(names.indexOf("quiet")).toBeLessThan(names.indexOf("running"));
    expect(names).not.toContain("ancient");
    expect(view.olderStaleCount).toBeGreaterThanOrEqual(1);

    const q = view.active.find((r) => r.name === "quiet")!;
    expect(q.state).toBe("stale");
    expect(q.lastPushAt).toBe(new Date(ago(500)).toISOString());
    const r = view.active.find((x) => x.name === "running")!;
    expect(r.state).toBe("running");
    // 100 items over the 120 s since gpu0's first report (the rate decays while no report comes),
    // ETA for the remaining 900.
    expect(r.progress).toEqual({
      done: 100,
      total: 1000,
      unit: "samples",
      fraction: 0.1,
      ratePerS: 100 / 120,
      etaS: 900 / (100 / 120),
    });
    expect(r.workers).toBe(1);
    expect(r.staleWorkers).toBe(0);
    expect(r.latestMetrics).toEqual([
      { key: "train/loss", step: 20, value: 0.25 },
      { key: "lr", step: 10, value: 1e-4 },
    ]);
    expect(view.recent.find((x) => x.name === "done")).toMatchObject({
      state: "failed",
      error: "OOM",
      exitCode: 137,
      durationS: 100,
    });
    expect(view.events[0]).toMatchObject({
      level: "warn",
      message: "disk almost full",
      runName: "running",
    });
  });
});
