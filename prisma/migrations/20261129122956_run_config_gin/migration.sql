-- CreateIndex
CREATE INDEX "Run_config_idx" ON "Run" USING GIN ("config" jsonb_path_ops);
