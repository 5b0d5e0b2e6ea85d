import { describe, expect, test } from "vitest";

import { isCounterOverflow, OVERFLOW_TOLERANCE, parseStep, STEP_MAX, STEP_MIN } from "./steps";

describe("parseStep", () => {
  test("safe integers", () => {
    expect(parseStep(0)).toBe(0n);
    expect(parseStep(42)).toBe(42n);
    expect(parseStep(-5)).toBe(-5n);
    expect(parseStep(-0)).toBe(0n);
    expect(parseStep(Number.MAX_SAFE_INTEGER)).toBe(9_007_199_254_740_991n);
  });

  test("numbers that are not safe integers throw RangeError", () => {
    for (const v of [2 ** 53, 1.5, Number.NaN, Number.POSITIVE_INFINITY, -(2 ** 60)]) {
      expect(() => parseStep(v)).toThrow(RangeError);
    }
  });

  test("decimal strings over the whole signed 64-bit range", () => {
    expect(parseStep("9223372036854775807")).toBe(9_223_372_036_854_775_807n);
    expect(parseStep("-9223372036854775808")).toBe(-9_223_372_036_854_775_808n);
    expect(parseStep("9007199254740993")).toBe(9_007_199_254_740_993n); // 2^53 + 1, not representable as a number
    expect(parseStep("12")).toBe(12n);
    expect(parseStep("007")).toBe(7n);
    expect(parseStep("-0")).toBe(0n);
    expect(parseStep("00000000000000000000001")).toBe(1n);
  });

  test("strings out of range or not plain decimal integers throw RangeError", () => {
    for (const v of [
      "9223372036854775808",
      "-9223372036854775809",
      "99999999999999999999",
      "",
      "-",
      "1e3",
      "1.0",
      " 1",
      "1 ",
      "+1",
      "0x10",
      "abc",
      "1".repeat(100_000),
    ]) {
      expect(() => parseStep(v)).toThrow(RangeError);
    }
  });

  test("bigints inside the range pass, outside throw", () => {
    expect(parseStep(STEP_MAX)).toBe(2n ** 63n - 1n);
    expect(parseStep(STEP_MIN)).toBe(-(2n ** 63n));
    expect(() => parseStep(2n ** 63n)).toThrow(RangeError);
    expect(() => parseStep(-(2n ** 63n) - 1n)).toThrow(RangeError);
  });
});

describe("isCounterOverflow", () => {
  test("an unsigned 32-bit wrap: 4294967290 → 5", () => {
    expect(isCounterOverflow(4_294_967_290n, 5n)).toBe(true);
  });

  test("a signed 32-bit wrap: 2147483647 → -2147483648", () => {
    expect(isCounterOverflow(2_147_483_647n, -2_147_483_648n)).toBe(true);
  });

  test("an ordinary resume from an older checkpoint is not an overflow", () => {
    expect(isCounterOverflow(5000n, 4000n)).toBe(false);
    expect(isCounterOverflow(2_000_000_000n, 0n)).toBe(false);
  });

  test("forward or equal steps are not an overflow", () => {
    expect(isCounterOverflow(4000n, 5000n)).toBe(false);
    expect(isCounterOverflow(7n, 7n)).toBe(false);
    expect(isCounterOverflow(5n, 4_294_967_290n)).toBe(false);
  });

  test("a wrap observed ten million steps later still counts; twenty million does not", () => {
    // drop = 2^32 − 100 − 10,000,000: 10,000,100 short of 2^32, within 2^24 = 16,777,216
    expect(isCounterOverflow(2n ** 32n - 100n, 10_000_000n)).toBe(true);
    expect(isCounterOverflow(2n ** 32n - 100n, 20_000_000n)).toBe(false);
  });

  test("tolerance is 2^32 ± 2^24, inclusive", () => {
    expect(OVERFLOW_TOLERANCE).toBe(16_777_216n);
    const big = 10n ** 12n;
    expect(isCounterOverflow(big, big - (2n ** 32n - 2n ** 24n))).toBe(true);
    expect(isCounterOverflow(big, big - (2n ** 32n - 2n ** 24n - 1n))).toBe(false);
    expect(isCounterOverflow(big, big - (2n ** 32n + 2n ** 24n))).toBe(true);
    expect(isCounterOverflow(big, big - (2n ** 32n + 2n ** 24n + 1n))).toBe(false);
  });

  test("works beyond 2^53", () => {
    const prev = 2n ** 60n;
    expect(isCounterOverflow(prev, prev - 2n ** 32n)).toBe(true);
    expect(isCounterOverflow(prev, prev - 1000n)).toBe(false);
  });
});
