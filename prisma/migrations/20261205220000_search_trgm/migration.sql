-- Global search (GET /api/search): substring matches served by trigram GIN indexes.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "Run_name_trgm_idx" ON "Run" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Run_key_trgm_idx" ON "Run" USING GIN ("key" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Run_notes_trgm_idx" ON "Run" USING GIN ("notes" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Run_tags_gin_idx" ON "Run" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "Artifact_uri_trgm_idx" ON "Artifact" USING GIN ("uri" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "AgentSession_title_trgm_idx" ON "AgentSession" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Plan_title_trgm_idx" ON "Plan" USING GIN ("title" gin_trgm_ops);
