import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

// Issue 21: the metric store owns its tables. Production code outside lib/server/metric-store/
// (tests, benches and migrations aside) never names them; it calls the store's functions.
const ROOT = path.resolve(__dirname, "../../..");
const SCANNED = ["app", "components", "lib", "cli", "server.ts", "proxy.ts"];
const TABLES =
  /"(MetricRow|MetricBlock|MetricTier|MetricSeries|MetricNonFinite|MetricPending|MetricPoint)"|pitwall_metric_points|pitwall_metric_stage/;

function sourceFiles(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [rel];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const child = path.join(rel, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sourceFiles(child);
    return /\.(ts|tsx)$/.test(e.name) && !/\.(test|spec)\.tsx?$/.test(e.name) ? [child] : [];
  });
}

describe("metric store ownership", () => {
  test("no production file outside lib/server/metric-store names a metric table", () => {
    const files = SCANNED.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const inStore = files.filter((f) => f.startsWith(path.join("lib", "server", "metric-store")));
    expect(inStore.some((f) => TABLES.test(fs.readFileSync(path.join(ROOT, f), "utf8")))).toBe(
      true,
    );
    const outside = files.filter(
      (f) => !inStore.includes(f) && TABLES.test(fs.readFileSync(path.join(ROOT, f), "utf8")),
    );
    expect(outside).toEqual([]);
  });
});
