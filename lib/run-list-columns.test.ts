import { describe, expect, test } from "vitest";

import { apiRunsPath, parseRunListQuery, runListSearch, runsPath } from "./paths";
import {
  configColumnKeys,
  configValueAt,
  DEFAULT_RUN_COLUMNS,
  formatRunColumns,
  parseRunColumns,
} from "./run-list-columns";

describe("run table columns in the URL", () => {
  test("cols lists built-in columns (kept in table order) and config keys (kept in chosen order)", () => {
    expect(parseRunColumns("peak,host,config.tp,config.spec.draft_model,config.tp")).toEqual({
      base: ["host", "peak"],
      config: ["tp", "spec.draft_model"],
      metric: [],
    });
    expect(parseRunColumns("none")).toEqual({ base: [], config: [], metric: [] });
    expect(parseRunColumns("config.tp")).toEqual({ base: [], config: ["tp"], metric: [] });
    expect(parseRunColumns("metric.train/loss,host,metric.eval/acc@1,metric.train/loss")).toEqual({
      base: ["host"],
      config: [],
      metric: ["train/loss", "eval/acc@1"],
    });
  });

  test("an unknown column, a malformed key or too many config keys refuses the whole value", () => {
    expect(parseRunColumns("host,bogus")).toBeNull();
    expect(parseRunColumns("config.")).toBeNull();
    expect(parseRunColumns("config.a..b")).toBeNull();
    expect(parseRunColumns("config.a b")).toBeNull();
    expect(parseRunColumns("config.x'--")).toBeNull();
    expect(parseRunColumns("")).toBeNull();
    const thirteen = Array.from({ length: 13 }, (_, i) => `config.k${i}`).join(",");
    expect(parseRunColumns(thirteen)).toBeNull();
    expect(parseRunColumns(`config.${"a".repeat(101)}`)).toBeNull();
  });

  test("the default choice leaves the URL; others round-trip through the page URL and saved views", () => {
    expect(formatRunColumns(DEFAULT_RUN_COLUMNS)).toBeUndefined();
    expect(formatRunColumns({ base: [], config: [], metric: [] })).toBe("none");
    const cols = {
      base: ["model" as const, "peak" as const],
      config: ["tp", "sweep"],
      metric: [] as string[],
    };
    expect(runsPath({ kind: "benchmark", cols })).toBe(
      "/runs?kind=benchmark&cols=model%2Cpeak%2Cconfig.tp%2Cconfig.sweep",
    );
    expect(runListSearch({ cols, page: 3 })).toBe("cols=model%2Cpeak%2Cconfig.tp%2Cconfig.sweep");
    // The API reads rows, not columns: cols stays out of its URL.
    expect(apiRunsPath({ kind: "benchmark", cols })).toBe("/api/runs?kind=benchmark");
    const back = parseRunListQuery(
      Object.fromEntries(new URLSearchParams(runsPath({ cols }).split("?")[1])),
    );
    expect(back).toEqual({ query: { cols }, ignored: [] });
    expect(parseRunListQuery({ cols: "host,nope" })).toEqual({ query: {}, ignored: ["cols"] });
    expect(parseRunListQuery({ group: "model" })).toEqual({
      query: { group: "model" },
      ignored: [],
    });
    expect(parseRunListQuery({ group: "gpu" })).toEqual({ query: {}, ignored: ["group"] });
  });

  test("metric columns round-trip through the page URL and become the API's metrics=", () => {
    const cols = { base: [], config: ["tp"], metric: ["train/loss", "serving/ttft_ms"] };
    const url = runsPath({ cols, sort: "metric.train/loss", group: "config.tp" });
    const back = parseRunListQuery(Object.fromEntries(new URLSearchParams(url.split("?")[1])));
    expect(back).toEqual({
      query: { cols, sort: "metric.train/loss", group: "config.tp" },
      ignored: [],
    });
    expect(apiRunsPath({ cols })).toBe("/api/runs?metrics=train%2Floss%2Cserving%2Fttft_ms");
    // Too many metric columns, a comma-free key rule, and malformed keyed sorts/groups are refused.
    const nine = Array.from({ length: 9 }, (_, i) => `metric.k${i}`).join(",");
    expect(parseRunColumns(nine)).toBeNull();
    expect(parseRunColumns("metric.")).toBeNull();
    expect(parseRunListQuery({ sort: "config.a b", group: "metric.loss" })).toEqual({
      query: {},
      ignored: ["sort", "group"],
    });
  });

  test("config keys offered: flattened leaves, most common first, built-in ones left out", () => {
    const configs = [
      { model: "m", engine: "sglang", tp: 8, spec: { draft: "d", steps: 3 } },
      { model: "m", tp: 4, batch: null },
      { tp: 2, "bad key": 1 },
    ];
    expect(configColumnKeys(configs)).toEqual(["tp", "spec.draft", "spec.steps"]);
    expect(configColumnKeys(configs, 1)).toEqual(["tp"]);
    expect(configValueAt(configs[0]!, "spec.steps")).toBe(3);
    expect(configValueAt(configs[0]!, "spec.nope")).toBeUndefined();
    expect(configValueAt(configs[0]!, "tp.x")).toBeUndefined();
  });
});
