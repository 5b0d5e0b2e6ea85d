import { describe, expect, it } from "vitest";

import {
  formatAbsoluteTime,
  formatAge,
  formatCompact,
  formatConfigValue,
  formatCount,
  formatDuration,
  formatLatency,
  formatMs,
  formatNumber,
  formatRelativeTime,
  formatRequestRate,
  formatTokPerS,
  MISSING,
} from "./format";

describe("formatNumber", () => {
  it("uses about four significant figures", () => {
    expect(formatNumber(577.8123)).toBe("577.8");
    expect(formatNumber(85.745)).toBe("85.7");
    expect(formatNumber(1.2345)).toBe("1.23");
    expect(formatNumber(0.12345)).toBe("0.123");
    expect(formatNumber(12412.39)).toBe("12,412");
  });
  it("keeps the significant digits of small numbers (a learning rate is 3e-4, never 0.000)", () => {
    expect(formatNumber(3e-4)).toBe("3e-4");
    expect(formatNumber(0.00025)).toBe("2.5e-4");
    expect(formatNumber(1.234e-5)).toBe("1.23e-5");
    expect(formatNumber(-2e-7)).toBe("−2e-7");
    expect(formatNumber(0.0123)).toBe("0.0123");
    expect(formatNumber(0.00123)).toBe("0.00123");
    expect(formatNumber(0)).toBe("0");
    expect(formatCompact(3e-4)).toBe("3e-4");
    expect(formatCompact(0.005)).toBe("0.005");
  });
  it("prints whole numbers without a fraction unless decimals are forced", () => {
    expect(formatNumber(32)).toBe("32");
    expect(formatNumber(1024)).toBe("1,024");
    expect(formatNumber(85, 1)).toBe("85.0");
  });
  it("shows missing and non-finite values explicitly, never as 0", () => {
    expect(formatNumber(null)).toBe(MISSING);
    expect(formatNumber(undefined)).toBe(MISSING);
    expect(formatNumber(Number.NaN)).toBe("NaN");
    expect(formatNumber(Number.POSITIVE_INFINITY)).toBe("∞");
    expect(formatNumber(Number.NEGATIVE_INFINITY)).toBe("−∞");
  });
  it("uses a real minus sign and never prints -0", () => {
    expect(formatNumber(-2.5)).toBe("−2.50");
    expect(formatNumber(-0.0001, 1)).toBe("0.0");
  });
});

describe("units", () => {
  it("formats throughput, rates and latencies with units", () => {
    expect(formatTokPerS(577.8)).toBe("577.8 tok/s");
    expect(formatTokPerS(26.51)).toBe("26.5 tok/s");
    expect(formatMs(85.7)).toBe("85.7 ms");
    expect(formatRequestRate(4, false)).toBe("4 req/s");
    expect(formatRequestRate(null, true)).toBe("max");
  });
  it("keeps ∞ with its unit but NaN and missing without", () => {
    expect(formatTokPerS(Number.POSITIVE_INFINITY)).toBe("∞ tok/s");
    expect(formatTokPerS(Number.NaN)).toBe("NaN");
    expect(formatTokPerS(null)).toBe(MISSING);
  });
  it("switches latency to seconds from one second on", () => {
    expect(formatLatency(85.7)).toBe("85.7 ms");
    expect(formatLatency(1234)).toBe("1.23 s");
    expect(formatLatency(Number.NaN)).toBe("NaN");
  });
  it("counts with grouping", () => {
    expect(formatCount(10000)).toBe("10,000");
    expect(formatCount(null)).toBe(MISSING);
  });
  it("compacts axis numbers", () => {
    expect(formatCompact(950)).toBe("950");
    expect(formatCompact(1200)).toBe("1.2k");
    expect(formatCompact(12412)).toBe("12k");
    expect(formatCompact(1000)).toBe("1k");
    expect(formatCompact(2.5)).toBe("2.5");
    expect(formatCompact(1_500_000)).toBe("1.5M");
  });
});

describe("formatDuration", () => {
  it("picks a compact unit", () => {
    expect(formatDuration(0.85)).toBe("850 ms");
    expect(formatDuration(1.234)).toBe("1.23 s");
    expect(formatDuration(8)).toBe("8 s");
    expect(formatDuration(12.34)).toBe("12.3 s");
    expect(formatDuration(245)).toBe("4m 05s");
    expect(formatDuration(2 * 3600 + 13 * 60 + 5)).toBe("2h 13m");
    expect(formatDuration(3 * 86400 + 4 * 3600)).toBe("3d 4h");
  });
  it("handles missing, non-finite and negative durations", () => {
    expect(formatDuration(null)).toBe(MISSING);
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe("∞");
    expect(formatDuration(-3)).toBe("0 s");
  });
});

describe("relative and absolute time", () => {
  const now = Date.parse("2026-01-10T12:00:00Z");
  it("is relative for recent times", () => {
    expect(formatRelativeTime("2026-01-10T11:59:58Z", now)).toBe("just now");
    expect(formatRelativeTime("2026-01-10T11:59:48Z", now)).toBe("12 s ago");
    expect(formatRelativeTime("2026-01-10T11:55:00Z", now)).toBe("5 min ago");
    expect(formatRelativeTime("2026-01-10T09:00:00Z", now)).toBe("3 h ago");
    expect(formatRelativeTime("2026-01-08T12:00:00Z", now)).toBe("2 d ago");
  });
  it("falls back to the date for old or future times and bad input", () => {
    expect(formatRelativeTime("2025-05-30T19:47:38Z", now)).toBe("2025-05-30");
    expect(formatRelativeTime("2026-01-11T12:00:00Z", now)).toBe("2026-01-11");
    expect(formatRelativeTime("not a date", now)).toBe(MISSING);
  });
  it("formats ages for freshness badges", () => {
    expect(formatAge("2026-01-10T11:59:57Z", now)).toBe("3 s");
    expect(formatAge("2026-01-10T11:58:00Z", now)).toBe("2 min");
    expect(formatAge("2026-01-10T12:00:05Z", now)).toBe("0 s");
  });
  it("formats absolute times in UTC or a given zone", () => {
    expect(formatAbsoluteTime("2025-05-30T19:47:38.000Z")).toBe("2025-05-30 19:47:38 UTC");
    expect(formatAbsoluteTime("2025-05-30T19:47:38.000Z", "Europe/Berlin")).toBe(
      "2025-05-30 21:47:38 GMT+2",
    );
  });
});

describe("formatConfigValue", () => {
  it("renders any config value on one line", () => {
    expect(formatConfigValue("sglang")).toBe("sglang");
    expect(formatConfigValue(0.88)).toBe("0.88");
    expect(formatConfigValue(true)).toBe("true");
    expect(formatConfigValue(["a", 1])).toBe("a, 1");
    expect(formatConfigValue({ k: 1 })).toBe('{"k":1}');
    expect(formatConfigValue(null)).toBe(MISSING);
    expect(formatConfigValue(Number.NaN)).toBe("NaN");
  });
});
