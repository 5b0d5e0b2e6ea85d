-- CreateIndex
CREATE INDEX "Run_archivedAt_idx" ON "Run"("archivedAt");
