-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "activeAlerts" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "exitCode" INTEGER,
ADD COLUMN     "notifiedState" TEXT,
ADD COLUMN     "outputTail" TEXT,
ADD COLUMN     "total" DOUBLE PRECISION,
ADD COLUMN     "unit" TEXT;

-- CreateTable
CREATE TABLE "HostSample" (
    "hostId" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "facts" JSONB NOT NULL,

    CONSTRAINT "HostSample_pkey" PRIMARY KEY ("hostId","ts")
);

-- CreateTable
CREATE TABLE "WorkerProgress" (
    "runId" INTEGER NOT NULL,
    "workerId" TEXT NOT NULL,
    "bootId" TEXT NOT NULL,
    "done" DOUBLE PRECISION,
    "total" DOUBLE PRECISION,
    "unit" TEXT,
    "counters" JSONB NOT NULL DEFAULT '{}',
    "counterState" JSONB NOT NULL DEFAULT '{}',
    "lastPushAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "WorkerProgress_pkey" PRIMARY KEY ("runId","workerId")
);

-- CreateTable
CREATE TABLE "ProgressSample" (
    "id" BIGSERIAL NOT NULL,
    "runId" INTEGER NOT NULL,
    "workerId" TEXT NOT NULL,
    "bootId" TEXT NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "done" DOUBLE PRECISION,
    "counters" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "ProgressSample_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MetricPoint" (
    "runId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "step" BIGINT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "MetricPoint_pkey" PRIMARY KEY ("runId","key","step")
);

-- CreateTable
CREATE TABLE "Artifact" (
    "id" SERIAL NOT NULL,
    "runId" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "uri" TEXT NOT NULL,
    "sizeBytes" DOUBLE PRECISION,
    "step" BIGINT,
    "ts" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Artifact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunEvent" (
    "id" BIGSERIAL NOT NULL,
    "runId" INTEGER NOT NULL,
    "level" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "code" TEXT,
    "ts" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "RunEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ProgressSample_runId_ts_idx" ON "ProgressSample"("runId", "ts");

-- CreateIndex
CREATE INDEX "Artifact_uri_idx" ON "Artifact"("uri");

-- CreateIndex
CREATE UNIQUE INDEX "Artifact_runId_uri_key" ON "Artifact"("runId", "uri");

-- CreateIndex
CREATE INDEX "RunEvent_runId_ts_idx" ON "RunEvent"("runId", "ts" DESC);

-- CreateIndex
CREATE INDEX "RunEvent_ts_idx" ON "RunEvent"("ts" DESC);

-- AddForeignKey
ALTER TABLE "HostSample" ADD CONSTRAINT "HostSample_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkerProgress" ADD CONSTRAINT "WorkerProgress_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProgressSample" ADD CONSTRAINT "ProgressSample_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MetricPoint" ADD CONSTRAINT "MetricPoint_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Artifact" ADD CONSTRAINT "Artifact_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunEvent" ADD CONSTRAINT "RunEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
