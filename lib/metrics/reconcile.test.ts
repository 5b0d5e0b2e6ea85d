import { describe, expect, test } from "vitest";

import { declaredPairs, reconcileCounts } from "./reconcile";

describe("reconcileCounts", () => {
  test("done vs uploaded vs deleted: a shortfall is reported with the count that never made it", () => {
    const m = reconcileCounts({
      done: 914_000,
      total: 914_000,
      counters: { "s3.uploaded": 913_931, "local.deleted": 913_931 },
      config: {},
    });
    expect(m).toEqual([
      {
        expected: "done",
        actual: "s3.uploaded",
        expectedCount: 914_000,
        actualCount: 913_931,
        gap: 69,
        message: "913,931 uploaded of 914,000 done: 69 never uploaded",
      },
    ]);
    expect(
      reconcileCounts({
        done: 10,
        total: null,
        counters: { "s3.uploaded": 10, "local.deleted": 7 },
        config: {},
      }).map((x) => x.message),
    ).toEqual(["7 deleted locally of 10 uploaded: 3 left on local disk"]);
  });

  test("agreeing, unknown or non-finite counts are no mismatch (a run without S3 counters is never flagged)", () => {
    expect(
      reconcileCounts({
        done: 5,
        total: 5,
        counters: { "s3.uploaded": 5, "local.deleted": 5 },
        config: {},
      }),
    ).toEqual([]);
    expect(reconcileCounts({ done: 5, total: 5, counters: {}, config: {} })).toEqual([]);
    expect(
      reconcileCounts({ done: null, total: null, counters: { "s3.uploaded": 3 }, config: {} }),
    ).toEqual([]);
    expect(
      reconcileCounts({
        done: 5,
        total: null,
        counters: { "s3.uploaded": Number.NaN },
        config: {},
      }),
    ).toEqual([]);
  });

  test("an excess is reported too, and the worker's declared pairs replace the defaults ([] turns it off)", () => {
    expect(
      reconcileCounts({ done: 100, total: null, counters: { "s3.uploaded": 104 }, config: {} })[0]
        ?.message,
    ).toBe("104 uploaded of 100 done: 4 more than done");
    const config = {
      reconcile: [
        ["total", "done"],
        ["prompts.sent", "prompts.scored"],
      ],
    };
    expect(
      reconcileCounts({
        done: 90,
        total: 100,
        counters: { "s3.uploaded": 1, "prompts.sent": 50, "prompts.scored": 48 },
        config,
      }).map((x) => x.message),
    ).toEqual([
      "90 done of 100 expected: 10 not done",
      "48 prompts.scored of 50 prompts.sent: 2 short in prompts.scored",
    ]);
    expect(
      reconcileCounts({
        done: 1,
        total: null,
        counters: { "s3.uploaded": 0 },
        config: { reconcile: [] },
      }),
    ).toEqual([]);
  });

  test("a malformed declaration falls back to the defaults", () => {
    expect(declaredPairs({ reconcile: [["a"]] })).toBeNull();
    expect(declaredPairs({ reconcile: "done,s3.uploaded" })).toBeNull();
    expect(declaredPairs({ reconcile: [["a", "b"]] })).toEqual([["a", "b"]]);
  });
});
