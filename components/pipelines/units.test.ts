import { describe, expect, test } from "vitest";

import { formatAxisValue, metricYAxis, nonFiniteLabel } from "@/components/charts/metric-chart";

import {
  formatBytes,
  formatDoneTotal,
  formatEta,
  formatFraction,
  formatInterval,
  formatLatestMetrics,
  formatRate,
} from "./units";

describe("pipeline units", () => {
  test("bytes in SI units", () => {
    expect(formatBytes(950e9)).toBe("950 GB");
    expect(formatBytes(1_100_000)).toBe("1.1 MB");
    expect(formatBytes(12)).toBe("12 B");
    expect(formatBytes(999_999)).toBe("1.0 MB");
    expect(formatBytes(null)).toBe("—");
    expect(formatBytes(Number.NaN)).toBe("NaN");
  });

  test("progress figures never claim 100% before the end", () => {
    expect(formatFraction(0.35)).toBe("35.0%");
    expect(formatFraction(0.99999)).toBe("99.9%");
    expect(formatFraction(1)).toBe("100.0%");
    expect(formatDoneTotal(350, 1000, "samples")).toBe("350 / 1,000 samples");
    expect(formatDoneTotal(350, null, "samples")).toBe("350 samples");
    expect(formatRate(1.7, "samples")).toBe("1.70 samples/s");
    expect(formatRate(null, "samples")).toBe("—");
    expect(formatEta(382)).toBe("ETA 6m 22s");
    expect(formatEta(null)).toBe("ETA —");
    expect(formatInterval(30)).toBe("30 s");
    expect(formatInterval(600)).toBe("10 min");
    expect(formatInterval(7200)).toBe("2 h");
  });
});

describe("metric chart axes", () => {
  test("tick labels fit the step: compact, decimals, or scientific for tiny values", () => {
    expect(formatAxisValue(1500, 500)).toBe("1.5k");
    expect(formatAxisValue(0.25, 0.25)).toBe("0.25");
    expect(formatAxisValue(0.5, 0.1)).toBe("0.5");
    expect(formatAxisValue(3e-4, 1e-4)).toBe("3e-4");
    expect(formatAxisValue(2.5e-5, 5e-6)).toBe("2.5e-5");
    expect(formatAxisValue(0, 1e-4)).toBe("0");
  });

  test("y domain is round, starts at 0 for values near it, and fits values far from it", () => {
    expect(metricYAxis([0.6, 4.6])).toEqual({ domain: [0, 6], ticks: [0, 2, 4, 6] });
    expect(metricYAxis([62, 78])).toEqual({ domain: [60, 80], ticks: [60, 65, 70, 75, 80] });
    expect(metricYAxis([-3, 2])).toEqual({ domain: [-4, 2], ticks: [-4, -2, 0, 2] });
    expect(metricYAxis([]).domain).toEqual([0, 1]);
  });

  test("non-finite labels name the value and the exact step", () => {
    expect(nonFiniteLabel(Number.NaN, 1200)).toBe("NaN at step 1,200");
    expect(nonFiniteLabel(Infinity, "9223372036854775807")).toBe("+∞ at step 9223372036854775807");
    expect(nonFiniteLabel(-Infinity, 7)).toBe("−∞ at step 7");
  });
});

test("latest metrics at one step name the step once; at different steps each names its own; serving runs name none", () => {
  const atOneStep = [
    { key: "loss", step: 5_000, value: 0.984 },
    { key: "grad_norm", step: 5_000, value: 0.942 },
    { key: "lr", step: 5_000, value: 3e-4 },
  ];
  expect(formatLatestMetrics(atOneStep)).toBe(
    "loss 0.984 · grad_norm 0.942 · lr 3e-4 @ step 5,000",
  );
  expect(
    formatLatestMetrics([
      { key: "train/loss", step: 20, value: 0.25 },
      { key: "lr", step: 10, value: 1e-4 },
    ]),
  ).toBe("train/loss 0.250 @ step 20 · lr 1e-4 @ step 10");
  expect(formatLatestMetrics([{ key: "loss", step: 20, value: 0.25 }])).toBe(
    "loss 0.250 @ step 20",
  );
  // Serving keys print with label and unit, never the raw key (issue 25).
  expect(
    formatLatestMetrics(
      [{ key: "serving/running_requests", step: 1_764_000_000_000, value: 21 }],
      false,
    ),
  ).toBe("Running 21 req");
  expect(
    formatLatestMetrics(
      [
        { key: "serving/generation_tok_per_s", step: 1_764_000_000_000, value: 557.8 },
        { key: "serving/kv_cache_usage", step: 1_764_000_000_000, value: 0.4512 },
      ],
      false,
    ),
  ).toBe("Output 557.8 tok/s · KV cache 45.1%");
  expect(formatLatestMetrics([])).toBe("");
});
