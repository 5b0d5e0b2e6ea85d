import { describe, expect, test } from "vitest";

import { checkpointPath, checkpointUriOfConfig } from "./checkpoint-paths";
import {
  compareExportFilename,
  compareExportPath,
  runExportFilename,
  runExportPath,
} from "./export-paths";

describe("checkpoint and export paths", () => {
  test("a URI with slashes, colons, spaces and '&' survives the query parameter", () => {
    const uri = "s3://drafters/dflash run/step-4000?v=1&x=2";
    const path = checkpointPath(uri);
    expect(path.startsWith("/checkpoints/view?uri=")).toBe(true);
    expect(new URL(path, "http://x").searchParams.get("uri")).toBe(uri);
  });

  test("only a top-level checkpoint string links to a checkpoint page", () => {
    expect(checkpointUriOfConfig("checkpoint", "s3://b/k")).toBe("s3://b/k");
    expect(checkpointUriOfConfig("checkpoint", "")).toBeNull();
    expect(checkpointUriOfConfig("checkpoint", 4000)).toBeNull();
    expect(checkpointUriOfConfig("model", "s3://b/k")).toBeNull();
    expect(checkpointUriOfConfig("speculative.checkpoint", "s3://b/k")).toBeNull();
  });

  test("export URLs and file names", () => {
    expect(runExportPath(42, "points", "csv")).toBe("/api/runs/42/export?data=points&format=csv");
    expect(runExportFilename(42, "metrics", "json")).toBe("run-42-metrics.json");
    expect(compareExportPath([3, 1], "csv")).toBe("/api/compare/export?ids=3,1&format=csv");
    expect(compareExportFilename([3, 1], "csv")).toBe("compare-3-1-points.csv");
  });
});
