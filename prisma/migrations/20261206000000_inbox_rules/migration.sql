-- Inbox rules: allow/deny tool permissions without asking; the audit names the rule that decided.
CREATE TABLE "InboxRule" (
    "id" SERIAL NOT NULL,
    "effect" TEXT NOT NULL,
    "agent" TEXT NOT NULL DEFAULT 'any',
    "project" TEXT,
    "tool" TEXT NOT NULL,
    "pattern" TEXT NOT NULL,
    "message" TEXT,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "InboxRule_pkey" PRIMARY KEY ("id")
);

ALTER TABLE "InboxAudit" ADD COLUMN "ruleId" INTEGER,
ADD COLUMN "rule" TEXT;

ALTER TABLE "InboxAudit" ADD CONSTRAINT "InboxAudit_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "InboxRule"("id") ON DELETE SET NULL ON UPDATE CASCADE;
