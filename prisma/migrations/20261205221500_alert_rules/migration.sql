-- CreateEnum
CREATE TYPE "AlertCondition" AS ENUM ('above', 'below', 'nan', 'no_data');

-- CreateTable
CREATE TABLE "AlertRule" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "RunKind" NOT NULL,
    "tag" TEXT,
    "metricKey" TEXT NOT NULL,
    "condition" "AlertCondition" NOT NULL,
    "threshold" DOUBLE PRECISION,
    "forSteps" INTEGER,
    "forSeconds" INTEGER,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdBy" TEXT NOT NULL,
    "updatedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AlertRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertFiring" (
    "ruleId" INTEGER NOT NULL,
    "runId" INTEGER NOT NULL,
    "firedAt" TIMESTAMPTZ(3) NOT NULL,
    "resolvedAt" TIMESTAMPTZ(3),
    "detail" TEXT NOT NULL,

    CONSTRAINT "AlertFiring_pkey" PRIMARY KEY ("ruleId","runId")
);

-- CreateIndex
CREATE INDEX "AlertFiring_runId_idx" ON "AlertFiring"("runId");

-- AddForeignKey
ALTER TABLE "AlertFiring" ADD CONSTRAINT "AlertFiring_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "AlertRule"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertFiring" ADD CONSTRAINT "AlertFiring_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
