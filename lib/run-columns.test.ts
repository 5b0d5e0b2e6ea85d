import { describe, expect, it } from "vitest";

import { isNumericColumn, metricColumnFormat } from "./run-columns";

describe("metricColumnFormat", () => {
  it("applies the key's scale before formatting: a KV-cache fraction prints in % under its (%) header", () => {
    const format = metricColumnFormat("serving/kv_cache_usage", [0.193, 0.5]);
    expect(format(0.193)).toBe("19.3");
    expect(format(0.5)).toBe("50.0");
  });

  it("keeps an unknown key's values as they are, one precision for the column", () => {
    const format = metricColumnFormat("loss", [1.234, 0.5]);
    expect(format(0.5)).toBe("0.50");
    expect(format(1.234)).toBe("1.23");
  });
});

describe("isNumericColumn", () => {
  it("is true for numbers with runs lacking the key, false for any text or no value at all", () => {
    expect(isNumericColumn([2, undefined, 8, null])).toBe(true);
    expect(isNumericColumn([2, "fp8"])).toBe(false);
    expect(isNumericColumn([undefined, null])).toBe(false);
  });
});
