import { describe, expect, it } from "vitest";

import { logKeysParam, parseChartView, patchChartViewSearch } from "./chart-view-url";

const parse = (q: string) => parseChartView(new URLSearchParams(q));

describe("parseChartView", () => {
  it("reads log-y keys, a step zoom and smoothing", () => {
    const v = parse("logy=loss,grad_norm&fromStep=100&toStep=900&smooth=0.8");
    expect([...v.logKeys].sort()).toEqual(["grad_norm", "loss"]);
    expect(v.zoom).toEqual({ fromStep: 100, toStep: 900 });
    expect(v.smoothing).toBe(0.8);
  });

  it("gives the default view for a plain URL", () => {
    const v = parse("range=6h&from=1&to=2");
    expect(v.logKeys.size).toBe(0);
    expect(v.zoom).toBeNull();
    expect(v.smoothing).toBeNull();
  });

  it("ignores each bad part on its own", () => {
    expect(parse("fromStep=900&toStep=100&logy=loss").zoom).toBeNull();
    expect([...parse("fromStep=900&toStep=100&logy=loss").logKeys]).toEqual(["loss"]);
    expect(parse("fromStep=1.5&toStep=9").zoom).toBeNull();
    expect(parse("fromStep=-1&toStep=9").zoom).toBeNull();
    expect(parse("fromStep=abc&toStep=9").zoom).toBeNull();
    expect(parse("fromStep=5").zoom).toBeNull();
    expect(parse("smooth=1").smoothing).toBeNull();
    expect(parse("smooth=-0.1").smoothing).toBeNull();
    expect(parse("smooth=abc").smoothing).toBeNull();
    expect(parse("smooth=0").smoothing).toBe(0);
    expect(parse("logy=%E0%A4%A").logKeys.size).toBe(0); // a bad escape inside the value
    expect(parse(`logy=${"x".repeat(201)}`).logKeys.size).toBe(0); // longer than a metric key
  });

  it("round-trips keys holding a comma or a percent sign", () => {
    const keys = new Set(["a,b", "50%", "loss"]);
    const q = patchChartViewSearch("", { logKeys: keys });
    expect(parse(q).logKeys).toEqual(keys);
  });
});

describe("patchChartViewSearch", () => {
  it("keeps other parameters and removes defaults", () => {
    const q = patchChartViewSearch("?range=6h&from=1&to=2&logy=lr", {
      logKeys: new Set(["loss", "grad_norm"]),
      zoom: { fromStep: 10.4, toStep: 20.2 },
    });
    expect(q).toBe("range=6h&from=1&to=2&logy=grad_norm,loss&fromStep=10&toStep=21");
    const reset = patchChartViewSearch(`?${q}`, { logKeys: new Set(), zoom: null });
    expect(reset).toBe("range=6h&from=1&to=2");
  });

  it("writes smoothing rounded to two decimals, and removes it on null", () => {
    expect(patchChartViewSearch("ids=1,2", { smoothing: 0.456 })).toBe("ids=1,2&smooth=0.46");
    expect(patchChartViewSearch("ids=1&smooth=0.3", { smoothing: null })).toBe("ids=1");
  });

  it("leaves fields the patch does not name", () => {
    expect(patchChartViewSearch("logy=loss&smooth=0.3", { zoom: null })).toBe(
      "logy=loss&smooth=0.3",
    );
    expect(logKeysParam(["b", "a"])).toBe("a,b");
  });
});
