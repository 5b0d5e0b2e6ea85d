-- The inbox: what an agent waits on (permissions, questions, notices), and the audit of every decision.
CREATE TYPE "InboxKind" AS ENUM ('permission', 'plan', 'question', 'notice');

CREATE TYPE "InboxStatus" AS ENUM ('waiting', 'decided', 'answered_in_terminal', 'agent_ended', 'expired');

CREATE TABLE "InboxItem" (
    "id" SERIAL NOT NULL,
    "key" TEXT NOT NULL,
    "kind" "InboxKind" NOT NULL,
    "hostId" INTEGER NOT NULL,
    "sessionId" INTEGER,
    "agent" TEXT NOT NULL,
    "cwd" TEXT,
    "project" TEXT,
    "gitBranch" TEXT,
    "toolName" TEXT,
    "summary" TEXT NOT NULL,
    "input" JSONB,
    "diff" TEXT,
    "status" "InboxStatus" NOT NULL DEFAULT 'waiting',
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "waiterSeenAt" TIMESTAMPTZ(3),
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMPTZ(3),
    "decision" TEXT,
    "message" TEXT,
    "editedInput" JSONB,

    CONSTRAINT "InboxItem_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "InboxAudit" (
    "id" SERIAL NOT NULL,
    "itemId" INTEGER NOT NULL,
    "decision" TEXT NOT NULL,
    "message" TEXT,
    "editedInput" JSONB,
    "decidedBy" TEXT NOT NULL,
    "decidedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "InboxAudit_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "InboxItem_status_createdAt_idx" ON "InboxItem"("status", "createdAt");

CREATE UNIQUE INDEX "InboxItem_hostId_key_key" ON "InboxItem"("hostId", "key");

CREATE INDEX "InboxAudit_itemId_idx" ON "InboxAudit"("itemId");

CREATE INDEX "InboxAudit_decidedAt_idx" ON "InboxAudit"("decidedAt" DESC);

ALTER TABLE "InboxItem" ADD CONSTRAINT "InboxItem_hostId_fkey" FOREIGN KEY ("hostId") REFERENCES "Host"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

ALTER TABLE "InboxItem" ADD CONSTRAINT "InboxItem_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "AgentSession"("id") ON DELETE SET NULL ON UPDATE CASCADE;

ALTER TABLE "InboxAudit" ADD CONSTRAINT "InboxAudit_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "InboxItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;
