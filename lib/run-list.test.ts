import { describe, expect, test } from "vitest";

import {
  defaultSortDir,
  foldRunGroups,
  parseRunGroupBy,
  parseRunGroupKey,
  parseRunSort,
  runGroupKey,
  runGroupKeyBy,
  runGroupLabel,
  sweepIdOf,
} from "./run-list";

describe("run groups", () => {
  test("config.sweep decides the group, else kind and name", () => {
    expect(
      runGroupKey({ kind: "benchmark", name: "sweep #1", config: { sweep: "qwen-mtp" } }),
    ).toBe("sweep:qwen-mtp");
    expect(runGroupKey({ kind: "benchmark", name: "sweep #1", config: { sweep: 42 } })).toBe(
      "sweep:42",
    );
    expect(runGroupKey({ kind: "training", name: "a: b", config: { sweep: "" } })).toBe(
      "name:training:a: b",
    );
    expect(runGroupKey({ kind: "training", name: "x", config: { sweep: { id: 1 } } })).toBe(
      "name:training:x",
    );
    expect(sweepIdOf({ sweep: Number.NaN })).toBeNull();
    expect(parseRunGroupKey("name:training:a: b")).toEqual({ kind: "training", name: "a: b" });
    expect(parseRunGroupKey("sweep:qwen-mtp")).toEqual({ sweep: "qwen-mtp" });
    expect(parseRunGroupKey("sweep:")).toBeNull();
    expect(parseRunGroupKey("other")).toBeNull();
  });

  test("group=host and group=model key runs by host and config.model; runs without a model share the model-not-set group", () => {
    const run = { id: 7, kind: "benchmark", name: "n", host: "kpro5", config: { model: "qwen" } };
    expect(runGroupKeyBy("host", run)).toBe("host:kpro5");
    expect(runGroupKeyBy("model", run)).toBe("model:qwen");
    expect(runGroupKeyBy("model", { ...run, config: { model: 3 } })).toBe("unset:model");
    expect(runGroupKeyBy("model", { ...run, config: {} })).toBe("unset:model");
    expect(parseRunGroupKey("unset:model")).toEqual({ unset: "model" });
    expect(runGroupLabel("unset:model")).toBe("model not set");
    expect(runGroupKeyBy(undefined, run)).toBe("name:benchmark:n");
    expect(parseRunGroupKey("host:kpro5")).toEqual({ host: "kpro5" });
    expect(parseRunGroupKey("model:org/m:1")).toEqual({ model: "org/m:1" });
    expect(parseRunGroupKey("none:7")).toBeNull();
    expect(parseRunGroupKey("host:")).toBeNull();
  });

  test("group=config.<path> keys runs by that config value; runs without one share the not-set group", () => {
    const run = { id: 9, kind: "training", name: "n", host: "h", config: { spec: { tp: 8 } } };
    expect(runGroupKeyBy("config.spec.tp", run)).toBe("config:spec.tp=8");
    expect(runGroupKeyBy("config.spec.tp", { ...run, config: { spec: { tp: true } } })).toBe(
      "config:spec.tp=true",
    );
    expect(runGroupKeyBy("config.spec.tp", { ...run, config: { spec: { tp: [8] } } })).toBe(
      "unset:config.spec.tp",
    );
    expect(runGroupKeyBy("config.spec.tp", { ...run, config: {} })).toBe("unset:config.spec.tp");
    expect(parseRunGroupKey("unset:config.spec.tp")).toEqual({
      unset: "config",
      configPath: "spec.tp",
    });
    expect(parseRunGroupKey("unset:config.bad path")).toBeNull();
    expect(parseRunGroupKey("unset:host")).toBeNull();
    expect(runGroupLabel("unset:config.spec.tp")).toBe("spec.tp not set");
    expect(parseRunGroupKey("config:spec.tp=a=b")).toEqual({ configPath: "spec.tp", value: "a=b" });
    expect(parseRunGroupKey("config:bad path=1")).toBeNull();
    expect(runGroupLabel("config:spec.tp=8")).toBe("spec.tp = 8");
    expect(parseRunGroupBy("config.lr")).toBe("config.lr");
    expect(parseRunGroupBy("config.")).toBeNull();
    expect(parseRunGroupBy("metric.loss")).toBeNull();
  });

  test("a page folds into items at each group's first member, in list order", () => {
    const runs = [
      { id: 1, groupKey: "sweep:a" },
      { id: 2, groupKey: "name:x" },
      { id: 3, groupKey: "sweep:a" },
      { id: 4, groupKey: "sweep:b" },
    ];
    expect(foldRunGroups(runs, new Set(["sweep:a", "sweep:b"]))).toEqual([
      { type: "group", key: "sweep:a", members: [runs[0], runs[2]] },
      { type: "run", run: runs[1] },
      { type: "group", key: "sweep:b", members: [runs[3]] },
    ]);
    expect(foldRunGroups(runs, new Set()).map((i) => i.type)).toEqual(["run", "run", "run", "run"]);
  });

  test("figures and times sort descending first, text ascending", () => {
    expect([
      defaultSortDir("peak"),
      defaultSortDir("startedAt"),
      defaultSortDir("duration"),
      defaultSortDir("name"),
      defaultSortDir("host"),
    ]).toEqual(["desc", "desc", "desc", "asc", "asc"]);
    expect([defaultSortDir("metric.train/loss"), defaultSortDir("config.tp")]).toEqual([
      "desc",
      "asc",
    ]);
  });

  test("keyed sorts: config paths and metric keys, anything else refused", () => {
    expect(parseRunSort("peak")).toBe("peak");
    expect(parseRunSort("config.spec.tp")).toBe("config.spec.tp");
    expect(parseRunSort("metric.eval/acc@1")).toBe("metric.eval/acc@1");
    expect(parseRunSort("metric.a,b")).toBeNull();
    expect(parseRunSort("config.a b")).toBeNull();
    expect(parseRunSort("gpu")).toBeNull();
  });
});
