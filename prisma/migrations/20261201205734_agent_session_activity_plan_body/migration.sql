-- AlterTable
ALTER TABLE "AgentSession" ADD COLUMN     "cwd" TEXT,
ADD COLUMN     "gitBranch" TEXT,
ADD COLUMN     "model" TEXT,
ADD COLUMN     "project" TEXT,
ADD COLUMN     "state" TEXT,
ADD COLUMN     "stateAt" TIMESTAMPTZ(3),
ADD COLUMN     "stateDetail" TEXT;

-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "body" TEXT,
ADD COLUMN     "supersedes" TEXT;
