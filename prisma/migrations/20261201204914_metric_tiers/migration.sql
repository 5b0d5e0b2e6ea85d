-- CreateTable
CREATE TABLE "MetricTier" (
    "runId" INTEGER NOT NULL,
    "bits" SMALLINT NOT NULL,
    "key" TEXT NOT NULL,
    "bucket" BIGINT NOT NULL,
    "n" INTEGER NOT NULL,
    "nonFinite" INTEGER NOT NULL,
    "minStep" BIGINT,
    "minValue" DOUBLE PRECISION,
    "maxStep" BIGINT,
    "maxValue" DOUBLE PRECISION,
    "firstStep" BIGINT,
    "firstValue" DOUBLE PRECISION,
    "lastStep" BIGINT,
    "lastValue" DOUBLE PRECISION,

    CONSTRAINT "MetricTier_pkey" PRIMARY KEY ("runId","bits","key","bucket")
);

-- CreateTable
CREATE TABLE "MetricNonFinite" (
    "runId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "step" BIGINT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "MetricNonFinite_pkey" PRIMARY KEY ("runId","key","step")
);

-- AddForeignKey
ALTER TABLE "MetricTier" ADD CONSTRAINT "MetricTier_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MetricNonFinite" ADD CONSTRAINT "MetricNonFinite_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: tiers and the non-finite copy of the points stored before this migration (ingest keeps
-- them current from now on; lib/metrics/tiers.ts documents the orders used here).
INSERT INTO "MetricTier" ("runId", "bits", "key", "bucket", "n", "nonFinite", "minStep", "minValue", "maxStep", "maxValue", "firstStep", "firstValue", "lastStep", "lastValue")
SELECT m."runId", t.bits, m.key, m.step >> t.bits,
       count(*) FILTER (WHERE f.ok), count(*) FILTER (WHERE NOT f.ok),
       (array_agg(m.step ORDER BY m.value, m.step) FILTER (WHERE f.ok))[1], min(m.value) FILTER (WHERE f.ok),
       (array_agg(m.step ORDER BY m.value DESC, m.step) FILTER (WHERE f.ok))[1], max(m.value) FILTER (WHERE f.ok),
       min(m.step) FILTER (WHERE f.ok), (array_agg(m.value ORDER BY m.step) FILTER (WHERE f.ok))[1],
       max(m.step) FILTER (WHERE f.ok), (array_agg(m.value ORDER BY m.step DESC) FILTER (WHERE f.ok))[1]
  FROM "MetricPoint" m
 CROSS JOIN generate_series(4, 60, 4) AS t(bits)
 CROSS JOIN LATERAL (SELECT m.value NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)) AS f(ok)
 GROUP BY m."runId", t.bits, m.key, m.step >> t.bits;

INSERT INTO "MetricNonFinite" ("runId", "key", "step", "value")
SELECT "runId", key, step, value FROM "MetricPoint"
 WHERE value IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8);
