-- Plan comments: a person's comment anchored to a line of a plan's markdown body.
CREATE TABLE "PlanComment" (
    "id" SERIAL NOT NULL,
    "planId" INTEGER NOT NULL,
    "line" INTEGER NOT NULL,
    "lineText" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "resolvedAt" TIMESTAMPTZ(3),
    "resolvedBy" TEXT,

    CONSTRAINT "PlanComment_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "PlanComment_planId_idx" ON "PlanComment"("planId");

ALTER TABLE "PlanComment" ADD CONSTRAINT "PlanComment_planId_fkey" FOREIGN KEY ("planId") REFERENCES "Plan"("id") ON DELETE CASCADE ON UPDATE CASCADE;
