-- CreateEnum
CREATE TYPE "PlanStatus" AS ENUM ('proposed', 'approved', 'changes_requested', 'rejected', 'expired');

-- CreateTable
CREATE TABLE "AgentSession" (
    "id" SERIAL NOT NULL,
    "key" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "title" TEXT,
    "hostId" INTEGER,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "lastUpdateAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AgentSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TodoSnapshot" (
    "sessionId" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "items" JSONB NOT NULL,

    CONSTRAINT "TodoSnapshot_pkey" PRIMARY KEY ("sessionId","seq")
);

-- CreateTable
CREATE TABLE "Plan" (
    "id" SERIAL NOT NULL,
    "key" TEXT NOT NULL,
    "hostId" INTEGER NOT NULL,
    "sessionId" INTEGER,
    "runId" INTEGER,
    "title" TEXT NOT NULL,
    "rationale" TEXT,
    "items" JSONB NOT NULL,
    "status" "PlanStatus" NOT NULL DEFAULT 'proposed',
    "proposedAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "runStateAtProposal" TEXT,
    "notifiedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Plan_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PlanDecision" (
    "id" SERIAL NOT NULL,
    "planId" INTEGER NOT NULL,
    "decision" "PlanStatus" NOT NULL,
    "items" JSONB NOT NULL,
    "comment" TEXT,
    "decidedBy" TEXT NOT NULL,
    "decidedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "PlanDecision_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AgentSession_key_key" ON "AgentSession"("key");

-- CreateIndex
CREATE INDEX "AgentSession_lastUpdateAt_idx" ON "AgentSession"("lastUpdateAt" DESC);

-- CreateIndex
CREATE INDEX "TodoSnapshot_sessionId_ts_idx" ON "TodoSnapshot"("sessionId", "ts");

-- CreateIndex
CREATE UNIQUE INDEX "Plan_key_key" ON "Plan"("key");

-- CreateIndex
CREATE INDEX "Plan_status_proposedAt_idx" ON "Plan"("status", "proposedAt" DESC);

-- CreateIndex
CREATE INDEX "PlanDecision_planId_idx" ON "PlanDecision"("planId");

-- AddForeignKey
ALTER TABLE "AgentSession" ADD CONSTRAINT "AgentSession_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TodoSnapshot" ADD CONSTRAINT "TodoSnapshot_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "AgentSession"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Plan" ADD CONSTRAINT "Plan_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Plan" ADD CONSTRAINT "Plan_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "AgentSession"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Plan" ADD CONSTRAINT "Plan_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PlanDecision" ADD CONSTRAINT "PlanDecision_planId_fkey" FOREIGN KEY ("planId") REFERENCES "Plan"("id") ON DELETE CASCADE ON UPDATE CASCADE;
