-- The agent hooks' background heartbeat: the last sign of life of a session's agent process.
ALTER TABLE "AgentSession" ADD COLUMN "lastSignalAt" TIMESTAMPTZ(3);
