-- AlterTable
ALTER TABLE "MetricSeries" ADD COLUMN     "minStep" BIGINT,
ADD COLUMN     "topBits" SMALLINT NOT NULL DEFAULT 60;
