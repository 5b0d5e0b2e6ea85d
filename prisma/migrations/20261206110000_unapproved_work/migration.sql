-- Worked without approval: a tool that edits files or runs commands ran while the session's plan waited for a decision.
CREATE TABLE "UnapprovedWork" (
    "id" SERIAL NOT NULL,
    "planId" INTEGER NOT NULL,
    "sessionId" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "detail" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "UnapprovedWork_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "UnapprovedWork_sessionId_idx" ON "UnapprovedWork"("sessionId");

CREATE UNIQUE INDEX "UnapprovedWork_planId_at_tool_key" ON "UnapprovedWork"("planId", "at", "tool");

ALTER TABLE "UnapprovedWork" ADD CONSTRAINT "UnapprovedWork_planId_fkey" FOREIGN KEY ("planId") REFERENCES "Plan"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "UnapprovedWork" ADD CONSTRAINT "UnapprovedWork_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "AgentSession"("id") ON DELETE CASCADE ON UPDATE CASCADE;
