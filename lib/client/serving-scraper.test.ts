import { describe, expect, it } from "vitest";

import { sglangExposition } from "@/lib/serving/testing";

import { scrapeTarget, ServingScraper } from "./serving-scraper";
import type { OutgoingFrame } from "./socket";

describe("scrapeTarget", () => {
  it("keys a loopback endpoint by this machine and leaves its host to the token", () => {
    expect(scrapeTarget("http://127.0.0.1:30000/metrics", undefined, "kpro5")).toEqual({
      url: "http://127.0.0.1:30000/metrics",
      engineHost: "kpro5",
      runKey: "serving:kpro5:30000/metrics",
      runHost: undefined,
    });
  });

  it("labels a remote endpoint with its hostname, or --host", () => {
    expect(scrapeTarget("http://gpu-node-3:8000/metrics", undefined, "x")).toMatchObject({
      engineHost: "gpu-node-3",
      runHost: "gpu-node-3",
      runKey: "serving:gpu-node-3:8000/metrics",
    });
    expect(scrapeTarget("http://10.0.0.7/metrics", "CT129", "x")).toMatchObject({
      engineHost: "CT129",
      runHost: "CT129",
      runKey: "serving:CT129:80/metrics",
    });
  });

  it("refuses what is not an http(s) URL", () => {
    expect(() => scrapeTarget("localhost:30000")).toThrow(/only http/);
    expect(() => scrapeTarget("not a url")).toThrow(/not a URL/);
  });
});

describe("ServingScraper", () => {
  const rank = (promptTokens: number) => ({
    running: 4,
    queued: 1,
    tokenUsage: 0.5,
    genThroughput: 100,
    promptTokens,
    generationTokens: promptTokens * 2,
    ttftPerBucket: [],
  });

  function setup() {
    const frames: OutgoingFrame[] = [];
    let now = 1_700_000_000_000;
    const responses: Array<string | Error> = [];
    const scraper = new ServingScraper({
      sender: { send: (f) => (frames.push(f), String(frames.length)) },
      targets: [scrapeTarget("http://127.0.0.1:30000/metrics", undefined, "kpro5")],
      intervalS: 5,
      clock: { now: () => now, sleep: async () => undefined },
      fetchText: async () => {
        const r = responses.shift()!;
        if (r instanceof Error) throw r;
        return r;
      },
    });
    return { frames, scraper, responses, advance: (ms: number) => (now += ms) };
  }

  it("pushes the derived values at step = unix ms and names the run after the engine and model", async () => {
    const { frames, scraper, responses, advance } = setup();
    scraper.start();
    responses.push(
      sglangExposition([rank(0)], "Qwen/Qwen3-8B"),
      sglangExposition([rank(5000)], "Qwen/Qwen3-8B"),
    );
    await scraper.scrapeOnce();
    advance(5000);
    await scraper.scrapeOnce();
    const starts = frames.filter((f) => f.type === "run.start");
    expect(starts.map((f) => f.type === "run.start" && [f.kind, f.name])).toEqual([
      ["serving", "serving @ kpro5:30000"],
      ["serving", "SGLang Qwen/Qwen3-8B @ kpro5:30000"],
    ]);
    const metrics = frames.filter((f) => f.type === "run.metrics");
    const last =
      metrics.at(-1)!.type === "run.metrics"
        ? (metrics.at(-1) as Extract<OutgoingFrame, { type: "run.metrics" }>).points
        : [];
    expect(last.every((p) => p.step === 1_700_000_005_000)).toBe(true);
    expect(Object.fromEntries(last.map((p) => [p.key, p.value]))).toMatchObject({
      "serving/up": 1,
      "serving/running_requests": 4,
      "serving/prompt_tok_per_s": 1000,
      "serving/generation_tok_per_s": 2000,
    });
  });

  it("marks an outage with up = 0 and one warning, never a crash, and resumes without a window across the gap", async () => {
    const { frames, scraper, responses, advance } = setup();
    responses.push(
      sglangExposition([rank(0)]),
      new Error("fetch failed"),
      new Error("fetch failed"),
      sglangExposition([rank(9000)]),
      sglangExposition([rank(9500)]),
    );
    for (let i = 0; i < 5; i++) {
      await scraper.scrapeOnce();
      advance(5000);
    }
    const events = frames
      .filter((f) => f.type === "run.event")
      .map((f) => f.type === "run.event" && [f.level, f.message]);
    expect(events).toEqual([
      [
        "warn",
        "engine at http://127.0.0.1:30000/metrics not reachable (fetch failed); no samples until it answers",
      ],
      ["info", "engine at http://127.0.0.1:30000/metrics answers again after 10 s"],
    ]);
    const byScrape = frames
      .filter((f) => f.type === "run.metrics")
      .map((f) =>
        f.type === "run.metrics" ? Object.fromEntries(f.points.map((p) => [p.key, p.value])) : {},
      );
    expect(byScrape[1]).toEqual({ "serving/up": 0 });
    expect(byScrape[2]).toEqual({ "serving/up": 0 });
    // The first scrape after the outage has no rate (its baseline is not the pre-outage scrape).
    expect(byScrape[3]!["serving/prompt_tok_per_s"]).toBeUndefined();
    expect(byScrape[4]!["serving/prompt_tok_per_s"]).toBe(100);
  });

  it("ends its runs `ended` when scraping stops: telemetry has no outcome", () => {
    const { frames, scraper } = setup();
    scraper.finish();
    expect(frames.map((f) => f.type === "run.end" && f.status)).toEqual(["ended"]);
  });

  it("adds the dcgm-exporter's GPU readings, per GPU and host-wide, to every good scrape", async () => {
    const frames: OutgoingFrame[] = [];
    const dcgm = [
      'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 90',
      'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b"} 10',
      'DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-b"} 70',
    ].join("\n");
    const scraper = new ServingScraper({
      sender: { send: (f) => (frames.push(f), String(frames.length)) },
      targets: [scrapeTarget("http://127.0.0.1:30000/metrics", undefined, "kpro5")],
      intervalS: 5,
      dcgmUrl: "http://127.0.0.1:9400/metrics",
      clock: { now: () => 1_700_000_000_000, sleep: async () => undefined },
      fetchText: async (url) =>
        url.endsWith(":9400/metrics") ? dcgm : sglangExposition([rank(0)]),
    });
    await scraper.scrapeOnce();
    const metrics = frames.find((f) => f.type === "run.metrics");
    const values =
      metrics?.type === "run.metrics"
        ? Object.fromEntries(metrics.points.map((p) => [p.key, p.value]))
        : {};
    expect(values).toMatchObject({
      "serving/running_requests": 4,
      "serving/gpu_util_pct": 50,
      "serving/gpu_temp_c": 70,
      "serving/gpu/0/util_pct": 90,
      "serving/gpu/1/util_pct": 10,
      "serving/gpu/1/temp_c": 70,
    });
  });
});
