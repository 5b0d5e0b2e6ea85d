-- CreateTable
CREATE TABLE "EvalResult" (
    "runId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "checkpointStep" BIGINT,
    "checkpointLabel" TEXT,
    "checkpointUri" TEXT,
    "promptId" TEXT NOT NULL,
    "category" TEXT,
    "dataset" TEXT,
    "verifySteps" DOUBLE PRECISION NOT NULL,
    "acceptedTokens" DOUBLE PRECISION NOT NULL,
    "draft" JSONB NOT NULL DEFAULT '{}',
    "outputTokPerS" DOUBLE PRECISION,
    "ts" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "EvalResult_pkey" PRIMARY KEY ("runId","key")
);

-- CreateTable
CREATE TABLE "Baseline" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "tolerance" DOUBLE PRECISION,
    "dataset" TEXT,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "sourceUrl" TEXT,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Baseline_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "EvalResult_runId_checkpointStep_idx" ON "EvalResult"("runId", "checkpointStep");

-- CreateIndex
CREATE INDEX "EvalResult_checkpointUri_idx" ON "EvalResult"("checkpointUri");

-- CreateIndex
CREATE UNIQUE INDEX "Baseline_name_key" ON "Baseline"("name");

-- AddForeignKey
ALTER TABLE "EvalResult" ADD CONSTRAINT "EvalResult_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
