import type pg from "pg";

import { toJsonSafe, type BenchmarkPoint } from "@/lib/protocol";

/** Column name, Postgres array type, and how to read it from a point. */
type Column = readonly [
  name: string,
  pgType: string,
  read: (p: BenchmarkPoint, ord: number) => unknown,
];

const num = (v: number | null | undefined) => (v === undefined ? null : v);

const POINT_COLUMNS: readonly Column[] = [
  ["key", "text", (p) => p.key],
  // Without an explicit ord there is no stable source order to record (batching varies).
  ["ord", "int4", (p) => p.ord ?? 0],
  ["scenario", "text", (p) => p.scenario],
  ["dataset", "text", (p) => p.dataset ?? null],
  ["concurrency", "int4", (p) => num(p.concurrency)],
  ["measuredConcurrency", "float8", (p) => num(p.measuredConcurrency)],
  ["requestRate", "float8", (p) => num(p.requestRate)],
  ["requestRateUnbounded", "bool", (p) => p.requestRateUnbounded ?? false],
  ["inputLen", "int4", (p) => num(p.inputLen)],
  ["outputLen", "int4", (p) => num(p.outputLen)],
  ["completed", "int4", (p) => num(p.completed)],
  ["failed", "int4", (p) => num(p.failed)],
  ["durationS", "float8", (p) => num(p.durationS)],
  ["requestThroughput", "float8", (p) => num(p.requestThroughput)],
  ["outputTokPerS", "float8", (p) => num(p.outputTokPerS)],
  ["totalTokPerS", "float8", (p) => num(p.totalTokPerS)],
  ["ttftMsMean", "float8", (p) => num(p.ttftMsMean)],
  ["ttftMsMedian", "float8", (p) => num(p.ttftMsMedian)],
  ["ttftMsP99", "float8", (p) => num(p.ttftMsP99)],
  ["tpotMsMean", "float8", (p) => num(p.tpotMsMean)],
  ["tpotMsMedian", "float8", (p) => num(p.tpotMsMedian)],
  ["tpotMsP99", "float8", (p) => num(p.tpotMsP99)],
  ["itlMsMean", "float8", (p) => num(p.itlMsMean)],
  ["itlMsMedian", "float8", (p) => num(p.itlMsMedian)],
  ["itlMsP99", "float8", (p) => num(p.itlMsP99)],
  ["e2eMsMean", "float8", (p) => num(p.e2eMsMean)],
  ["e2eMsMedian", "float8", (p) => num(p.e2eMsMedian)],
  ["e2eMsP99", "float8", (p) => num(p.e2eMsP99)],
  ["acceptLength", "float8", (p) => num(p.acceptLength)],
  ["raw", "jsonb", (p) => JSON.stringify(toJsonSafe(p.raw ?? {}))],
];

const UPSERT_POINTS_SQL = (() => {
  const cols = POINT_COLUMNS.map(([name]) => `"${name}"`);
  const params = POINT_COLUMNS.map(([, type], i) => `$${i + 3}::${type}[]`);
  const updates = POINT_COLUMNS.filter(([name]) => name !== "key")
    .map(([name]) => `"${name}" = EXCLUDED."${name}"`)
    .join(", ");
  return `INSERT INTO "BenchmarkPoint" ("runId", "updatedAt", ${cols.join(", ")})
    SELECT $1::int4, $2::timestamptz, * FROM unnest(${params.join(", ")})
    ON CONFLICT ("runId", key) DO UPDATE SET ${updates}, "updatedAt" = EXCLUDED."updatedAt"`;
})();

/**
 * Upserts points with one statement per run. Within one statement a key may appear only once
 * (Postgres refuses to update a row twice), so the latest occurrence of a key wins here too.
 */
export async function upsertBenchmarkPoints(
  client: pg.PoolClient,
  items: Array<{ runId: number; point: BenchmarkPoint }>,
  at: Date,
): Promise<void> {
  const byRun = new Map<number, Map<string, { point: BenchmarkPoint; ord: number }>>();
  items.forEach(({ runId, point }, ord) => {
    let points = byRun.get(runId);
    if (!points) byRun.set(runId, (points = new Map()));
    points.delete(point.key);
    points.set(point.key, { point, ord });
  });
  for (const [runId, points] of byRun) {
    const rows = [...points.values()];
    const arrays = POINT_COLUMNS.map(([, , read]) =>
      rows.map(({ point, ord }) => read(point, ord)),
    );
    await client.query(UPSERT_POINTS_SQL, [runId, at, ...arrays]);
  }
}
