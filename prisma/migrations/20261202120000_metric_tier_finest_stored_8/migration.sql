-- Ingest no longer stores tier 4 (16-step buckets): charts sum it from raw points at read time
-- (lib/metrics/tiers.ts, FINEST_STORED_BITS). Keys whose top tier was 4 (every step in one
-- 16-step bucket) get their tier-8 bucket, which holds the same points, then tier 4 goes.
INSERT INTO "MetricTier" ("runId", bits, key, bucket, n, "nonFinite", "minStep", "minValue", "maxStep", "maxValue", "firstStep", "firstValue", "lastStep", "lastValue")
SELECT t."runId", 8, t.key, t.bucket >> 4, t.n, t."nonFinite", t."minStep", t."minValue", t."maxStep", t."maxValue", t."firstStep", t."firstValue", t."lastStep", t."lastValue"
  FROM "MetricTier" t JOIN "MetricSeries" s ON s."runId" = t."runId" AND s.key = t.key
 WHERE s."topBits" = 4 AND t.bits = 4
ON CONFLICT ("runId", bits, key, bucket) DO NOTHING;

UPDATE "MetricSeries" SET "topBits" = 8 WHERE "topBits" = 4;

DELETE FROM "MetricTier" WHERE bits = 4;
