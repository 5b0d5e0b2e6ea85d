-- Ownership (issue 9): a run or agent session is owned by the host of the token that created it;
-- tokens created with `--shared` may write to anything. Plans already record their proposer's
-- token host in "Plan"."hostId", which is their owner.

-- Tokens: explicit shared scope, off for every existing token.
ALTER TABLE "ApiToken" ADD COLUMN "shared" BOOLEAN NOT NULL DEFAULT false;

-- Runs: rows from before ownership are owned by the host whose label they carry.
ALTER TABLE "Run" ADD COLUMN "ownerHostId" INTEGER;
UPDATE "Run" SET "ownerHostId" = "hostId";
ALTER TABLE "Run" ALTER COLUMN "ownerHostId" SET NOT NULL;
ALTER TABLE "Run" ADD CONSTRAINT "Run_ownerHostId_fkey" FOREIGN KEY ("ownerHostId") REFERENCES "Host"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Sessions: likewise by their label host; bare sessions without one stay unowned (NULL) until
-- the next writer claims them.
ALTER TABLE "AgentSession" ADD COLUMN "ownerHostId" INTEGER;
UPDATE "AgentSession" SET "ownerHostId" = "hostId";
ALTER TABLE "AgentSession" ADD CONSTRAINT "AgentSession_ownerHostId_fkey" FOREIGN KEY ("ownerHostId") REFERENCES "Host"("id") ON DELETE SET NULL ON UPDATE CASCADE;
