-- CreateIndex
CREATE INDEX "ProgressSample_runId_workerId_bootId_idx" ON "ProgressSample"("runId", "workerId", "bootId");
