import { describe, expect, it } from "vitest";

import { apiPath } from "./client";
import { getHostRoute } from "./hosts";
import { listPlansRoute } from "./plans";
import { runMetricsRoute } from "./runs";

// The browser's URLs come from the contracts' routes (lib/api/client.ts apiPath).

describe("apiPath", () => {
  it("fills path parameters, encodes them and repeats array query values", () => {
    expect(apiPath(runMetricsRoute, { id: 42 }, { key: ["loss", "lr"], fromStep: 0 })).toBe(
      "/api/runs/42/metrics?key=loss&key=lr&fromStep=0",
    );
    expect(apiPath(getHostRoute, { name: "a b/c" })).toBe("/api/hosts/a%20b%2Fc");
  });

  it("leaves absent values out and keeps zero", () => {
    expect(apiPath(listPlansRoute, {}, { session: undefined, run: null, limit: 0 })).toBe(
      "/api/plans?limit=0",
    );
    expect(apiPath(listPlansRoute)).toBe("/api/plans");
  });

  it("refuses a route whose path parameter is missing", () => {
    expect(() => apiPath(runMetricsRoute, {})).toThrow(/missing path parameter id/);
  });
});
