-- The recent-frame table (issue 22, docs/decisions.md): small `run.metrics` batches are written
-- as one row per run and batch and folded into rows/blocks, series and tiers in the background
-- (lib/server/metric-store/fold.ts).

-- CreateTable
CREATE TABLE "MetricPending" (
    "id" BIGSERIAL NOT NULL,
    "runId" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "keys" TEXT[],
    "steps" BIGINT[],
    "values" DOUBLE PRECISION[],
    "tsMs" DOUBLE PRECISION[],

    CONSTRAINT "MetricPending_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "MetricPending_runId_id_idx" ON "MetricPending"("runId", "id");

-- AddForeignKey
ALTER TABLE "MetricPending" ADD CONSTRAINT "MetricPending_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A batch's arrays stay inline (a 30-key step frame is ~1 KB; hundreds of points stay below a page).
ALTER TABLE "MetricPending" SET (toast_tuple_target = 8160);

-- Every point, whichever table holds it, pending points included: a pending point replaces a
-- stored one of the same (run, key, step) (it was written later), and of several pending writes
-- of one step the last wins (highest id, then the latest position in the batch). The pending
-- table holds about one fold interval of batches, so its anti-joins stay small.
CREATE OR REPLACE VIEW "MetricPoint" AS
  SELECT r."runId", r.key, r.step, r.value, r.ts FROM "MetricRow" r
   WHERE NOT EXISTS (SELECT 1 FROM "MetricPending" q CROSS JOIN LATERAL unnest(q.keys, q.steps) AS u(key, step)
                      WHERE q."runId" = r."runId" AND u.key = r.key AND u.step = r.step)
  UNION ALL
  SELECT b."runId", b.key, p.step, p.value, timestamptz 'epoch' + p.ms * interval '1 millisecond'
    FROM "MetricBlock" b CROSS JOIN LATERAL unnest(b.steps, b."values", b."tsMs") AS p(step, value, ms)
   WHERE NOT EXISTS (SELECT 1 FROM "MetricPending" q CROSS JOIN LATERAL unnest(q.keys, q.steps) AS u(key, step)
                      WHERE q."runId" = b."runId" AND u.key = b.key AND u.step = p.step)
  UNION ALL
  SELECT * FROM (
    SELECT DISTINCT ON (q."runId", u.key, u.step) q."runId", u.key, u.step, u.value,
           CASE WHEN u.ms IS NULL OR u.ms = 'NaN'::float8 THEN q.at
                ELSE timestamptz 'epoch' + u.ms * interval '1 millisecond' END AS ts
      FROM "MetricPending" q
     CROSS JOIN LATERAL unnest(q.keys, q.steps, q."values", q."tsMs") WITH ORDINALITY AS u(key, step, value, ms, n)
     ORDER BY q."runId", u.key, u.step, q.id DESC, u.n DESC) pending;
