import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { NotFoundError } from "@/lib/server/errors";
import { ingestHarness, type RawFrame } from "@/test/support/ingest";

import { getHostServing, getRunServing } from "./serving";

// Serving telemetry reads over rows written by the real ingest code: which serving runs a
// benchmark page shows, sweep levels placed in time, latest values, outages.

const { prisma, principalFor, ingestWith, runId, close } = await ingestHarness(
  "serving-test-harness",
  { prismaMax: 4 },
);
afterAll(close);

const NOW = 1_790_000_000_000;
const ago = (s: number) => NOW - s * 1000;
const scrape = (run: string, atS: number, values: Record<string, number>): RawFrame => ({
  type: "run.metrics",
  run,
  points: Object.entries(values).map(([key, value]) => ({
    key,
    step: ago(atS),
    value,
    ts: ago(atS),
  })),
});

describe("serving reads", () => {
  test("a benchmark page gets the linked and same-host serving runs of its window, its levels in time, and the client's τ", async () => {
    const s = randomUUID().slice(0, 8);
    const bench = await principalFor(`bench-${s}`);
    const gpu = await principalFor(`gpu-${s}`);
    const other = await principalFor(`other-${s}`);
    const [benchKey, linked, sameHost, elsewhere, old] = [
      "bench",
      "linked",
      "same",
      "elsewhere",
      "old",
    ].map((k) => `${k}-${s}`) as [string, string, string, string, string];

    await ingestWith(
      { as: gpu, at: ago(70) },
      {
        type: "run.start",
        run: linked,
        name: "SGLang @ gpu",
        kind: "serving",
        startedAt: ago(70),
        config: { intervalS: 5, engine: "sglang", url: "http://gpu:30000/metrics" },
      },
    );
    await ingestWith(
      { as: bench, at: ago(70) },
      {
        type: "run.start",
        run: sameHost,
        name: "vLLM @ bench",
        kind: "serving",
        startedAt: ago(70),
      },
    );
    await ingestWith(
      { as: other, at: ago(70) },
      { type: "run.start", run: elsewhere, name: "not ours", kind: "serving", startedAt: ago(70) },
    );
    await ingestWith(
      { as: bench, at: ago(86_400) },
      { type: "run.start", run: old, name: "yesterday", kind: "serving", startedAt: ago(86_400) },
    );
    await ingestWith({ as: bench, at: ago(86_400) }, scrape(old, 86_400, { "serving/up": 1 }));
    await ingestWith(
      { as: bench, at: ago(60) },
      {
        type: "run.start",
        run: benchKey,
        name: "sweep",
        kind: "benchmark",
        startedAt: ago(60),
        config: { servingRuns: [linked] },
      },
    );

    for (const t of [50, 45, 40, 35, 30]) {
      await ingestWith(
        { as: gpu, at: ago(t) },
        scrape(linked, t, {
          "serving/up": 1,
          "serving/kv_cache_usage": (60 - t) / 100,
          "serving/running_requests": 60 - t,
          "serving/accept_length": 3.2,
        }),
      );
      await ingestWith(
        { as: bench, at: ago(t) },
        scrape(sameHost, t, { "serving/up": 1, "serving/queued_requests": 2 }),
      );
      await ingestWith({ as: other, at: ago(t) }, scrape(elsewhere, t, { "serving/up": 1 }));
    }
    // The linked engine stops answering at -25 s: up = 0 and nothing else.
    for (const t of [25, 20])
      await ingestWith({ as: gpu, at: ago(t) }, scrape(linked, t, { "serving/up": 0 }));

    await ingestWith(
      { as: bench, at: ago(40) },
      {
        type: "run.benchmark",
        run: benchKey,
        points: [{ key: "c1", ord: 0, concurrency: 1, durationS: 20, acceptLength: 2.9 }],
      },
    );
    await ingestWith(
      { as: bench, at: ago(10) },
      {
        type: "run.benchmark",
        run: benchKey,
        points: [{ key: "c8", ord: 1, concurrency: 8, durationS: 20, acceptLength: 3.1 }],
      },
    );
    await ingestWith(
      { as: bench, at: ago(5) },
      { type: "run.end", run: benchKey, status: "succeeded", endedAt: ago(5) },
    );

    const view = await getRunServing(prisma, await runId(benchKey), new Date(NOW));
    expect(view.fromMs).toBe(ago(75));
    expect(view.toMs).toBe(NOW);
    expect(view.runs.map((r) => r.key).sort()).toEqual([linked, sameHost].sort());
    expect(view.levels).toEqual([
      { startMs: ago(60), endMs: ago(40), label: "c=1" },
      { startMs: ago(30), endMs: ago(10), label: "c=8" },
    ]);
    expect(view.clientAcceptLength).toBeCloseTo(3.0, 12);

    const l = view.runs.find((r) => r.key === linked)!;
    expect(l).toMatchObject({
      host: `gpu-${s}`,
      engine: "sglang",
      url: "http://gpu:30000/metrics",
      intervalS: 5,
      up: false,
      downSinceMs: ago(25),
      lastSampleMs: ago(30),
    });
    // Latest values are those of the last good scrape.
    expect(l.latest).toEqual({
      "serving/kv_cache_usage": 0.3,
      "serving/running_requests": 30,
      "serving/accept_length": 3.2,
    });
    expect(
      l.series.find((x) => x.key === "serving/kv_cache_usage")!.points.map((p) => p.tMs),
    ).toEqual([50, 45, 40, 35, 30].map(ago));
    expect(l.series.find((x) => x.key === "serving/up")!.points.map((p) => p.value)).toEqual([
      1, 1, 1, 1, 1, 0, 0,
    ]);

    const same = view.runs.find((r) => r.key === sameHost)!;
    expect(same).toMatchObject({
      up: true,
      downSinceMs: null,
      lastSampleMs: ago(30),
      latest: { "serving/queued_requests": 2 },
    });

    // The host page: the last hour of the host's serving runs (yesterday's is left out).
    const host = await getHostServing(prisma, `bench-${s}`, new Date(NOW));
    expect(host.runs.map((r) => r.key)).toEqual([sameHost]);
    // Scrapes began 50 s ago: the panel spans its minimum of five minutes, not the whole hour.
    expect(host.fromMs).toBe(ago(300));
    // A benchmark still running, silent since its start 60 s ago: its window reaches now.
    const quiet = `quiet-${s}`;
    await ingestWith(
      { as: bench, at: ago(60) },
      { type: "run.start", run: quiet, name: "quiet sweep", kind: "benchmark", startedAt: ago(60) },
    );
    const quietView = await getRunServing(prisma, await runId(quiet), new Date(NOW));
    expect(quietView.toMs).toBe(NOW);
    expect(quietView.runs.map((r) => r.key)).toEqual([sameHost]);
    // A serving run's own page shows itself.
    const own = await getRunServing(prisma, await runId(linked), new Date(NOW));
    expect(own.runs.map((r) => r.key)).toEqual([linked]);
    expect(own.levels).toEqual([]);
  });

  test("unknown host or run: NotFoundError", async () => {
    await expect(getHostServing(prisma, `nobody-${randomUUID()}`)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(getRunServing(prisma, 2_000_000_000)).rejects.toBeInstanceOf(NotFoundError);
  });
});
