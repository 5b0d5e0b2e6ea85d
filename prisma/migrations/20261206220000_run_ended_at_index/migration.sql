-- CreateIndex
CREATE INDEX "Run_endedAt_id_idx" ON "Run"("endedAt" DESC, "id" DESC);
