-- CreateEnum
CREATE TYPE "RunKind" AS ENUM ('benchmark', 'extraction', 'generation', 'training', 'eval');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('running', 'succeeded', 'failed', 'cancelled');

-- CreateTable
CREATE TABLE "Host" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "facts" JSONB,
    "lastHeartbeatAt" TIMESTAMPTZ(3),
    "heartbeatIntervalS" DOUBLE PRECISION NOT NULL DEFAULT 10,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Host_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" SERIAL NOT NULL,
    "hostId" INTEGER NOT NULL,
    "prefix" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" SERIAL NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "RunKind" NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'running',
    "hostId" INTEGER NOT NULL,
    "config" JSONB NOT NULL DEFAULT '{}',
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "notes" TEXT,
    "error" TEXT,
    "stallAfterS" INTEGER NOT NULL DEFAULT 120,
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMPTZ(3),
    "lastPushAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BenchmarkPoint" (
    "runId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "ord" INTEGER NOT NULL DEFAULT 0,
    "scenario" TEXT NOT NULL DEFAULT 'throughput',
    "dataset" TEXT,
    "concurrency" INTEGER,
    "measuredConcurrency" DOUBLE PRECISION,
    "requestRate" DOUBLE PRECISION,
    "requestRateUnbounded" BOOLEAN NOT NULL DEFAULT false,
    "inputLen" INTEGER,
    "outputLen" INTEGER,
    "completed" INTEGER,
    "failed" INTEGER,
    "durationS" DOUBLE PRECISION,
    "requestThroughput" DOUBLE PRECISION,
    "outputTokPerS" DOUBLE PRECISION,
    "totalTokPerS" DOUBLE PRECISION,
    "ttftMsMean" DOUBLE PRECISION,
    "ttftMsMedian" DOUBLE PRECISION,
    "ttftMsP99" DOUBLE PRECISION,
    "tpotMsMean" DOUBLE PRECISION,
    "tpotMsMedian" DOUBLE PRECISION,
    "tpotMsP99" DOUBLE PRECISION,
    "itlMsMean" DOUBLE PRECISION,
    "itlMsMedian" DOUBLE PRECISION,
    "itlMsP99" DOUBLE PRECISION,
    "e2eMsMean" DOUBLE PRECISION,
    "e2eMsMedian" DOUBLE PRECISION,
    "e2eMsP99" DOUBLE PRECISION,
    "acceptLength" DOUBLE PRECISION,
    "raw" JSONB NOT NULL DEFAULT '{}',
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BenchmarkPoint_pkey" PRIMARY KEY ("runId","key")
);

-- CreateTable
CREATE TABLE "IngestedFrame" (
    "hostId" INTEGER NOT NULL,
    "frameId" TEXT NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IngestedFrame_pkey" PRIMARY KEY ("hostId","frameId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Host_name_key" ON "Host"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE INDEX "ApiToken_hostId_idx" ON "ApiToken"("hostId");

-- CreateIndex
CREATE UNIQUE INDEX "Run_key_key" ON "Run"("key");

-- CreateIndex
CREATE INDEX "Run_startedAt_id_idx" ON "Run"("startedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Run_hostId_idx" ON "Run"("hostId");

-- CreateIndex
CREATE INDEX "Run_kind_status_idx" ON "Run"("kind", "status");

-- CreateIndex
CREATE INDEX "IngestedFrame_receivedAt_idx" ON "IngestedFrame"("receivedAt");

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BenchmarkPoint" ADD CONSTRAINT "BenchmarkPoint_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
