-- CreateTable
CREATE TABLE "MetricSeries" (
    "runId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "maxStep" BIGINT NOT NULL,

    CONSTRAINT "MetricSeries_pkey" PRIMARY KEY ("runId","key")
);

-- AddForeignKey
ALTER TABLE "MetricSeries" ADD CONSTRAINT "MetricSeries_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the highest step of every (run, key) stored before this migration.
INSERT INTO "MetricSeries" ("runId", "key", "maxStep")
SELECT "runId", "key", max("step") FROM "MetricPoint" GROUP BY "runId", "key";
