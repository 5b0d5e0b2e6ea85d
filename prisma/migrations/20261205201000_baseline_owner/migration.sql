-- Baselines are owned like runs, sessions and plans: the host of the first token that wrote one
-- (lib/server/auth/ownership.ts). Existing baselines have no owner; the next writer claims them.
ALTER TABLE "Baseline" ADD COLUMN "ownerHostId" INTEGER;
ALTER TABLE "Baseline" ADD CONSTRAINT "Baseline_ownerHostId_fkey" FOREIGN KEY ("ownerHostId") REFERENCES "Host"("id") ON DELETE SET NULL ON UPDATE CASCADE;
