-- A plan whose agent stopped waiting (answered in the terminal, or the agent ended) is closed as
-- expired with the reason; "waiterSeenAt" is when the proposer last asked for the decision.
ALTER TABLE "Plan" ADD COLUMN "closedReason" TEXT;
ALTER TABLE "Plan" ADD COLUMN "waiterSeenAt" TIMESTAMPTZ(3);
