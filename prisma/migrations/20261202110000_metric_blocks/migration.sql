-- Metric points appended in bulk are stored as blocks (one row of arrays per key and batch)
-- instead of one row per point; single points stay rows. Readers see both through the view
-- "MetricPoint" (same columns as the table it replaces). Issue 10, docs/architecture.md.

-- The row table keeps its data under its new name.
ALTER TABLE "MetricPoint" RENAME TO "MetricRow";
ALTER TABLE "MetricRow" RENAME CONSTRAINT "MetricPoint_pkey" TO "MetricRow_pkey";

-- CreateTable
CREATE TABLE "MetricBlock" (
    "runId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "firstStep" BIGINT NOT NULL,
    "lastStep" BIGINT NOT NULL,
    "steps" BIGINT[],
    "values" DOUBLE PRECISION[],
    "tsMs" BIGINT[],

    CONSTRAINT "MetricBlock_pkey" PRIMARY KEY ("runId","key","firstStep")
);

-- A block of up to 300 points (lib/server/ingest/writers/metric-blocks.ts) stays inline and
-- uncompressed: compressing every block cost more CPU than storing it (docs/architecture.md).
ALTER TABLE "MetricBlock" SET (toast_tuple_target = 8160);

-- AddForeignKey
ALTER TABLE "MetricBlock" ADD CONSTRAINT "MetricBlock_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every point, whichever table holds it. Filters on "runId" and key reach both tables' keys;
-- a step range does not prune blocks: readers of a range call pitwall_metric_points instead.
CREATE VIEW "MetricPoint" AS
  SELECT "runId", key, step, value, ts FROM "MetricRow"
  UNION ALL
  SELECT b."runId", b.key, p.step, p.value, timestamptz 'epoch' + p.ms * interval '1 millisecond'
    FROM "MetricBlock" b CROSS JOIN LATERAL unnest(b.steps, b."values", b."tsMs") AS p(step, value, ms);

-- The points of (run, key) with lo <= step <= hi, reading only the blocks whose step range meets
-- [lo, hi]: a key's blocks never overlap, so they are the blocks from the last one starting at or
-- before lo up to the last one starting at or before hi, one primary-key range (a bare
-- "firstStep" <= hi would walk every block from the key's first). A single-SELECT SQL function:
-- the planner inlines it into the calling query.
CREATE FUNCTION pitwall_metric_points(run int4, metric text, lo int8, hi int8)
  RETURNS TABLE (key text, step int8, value float8, ts timestamptz)
  LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT r.key, r.step, r.value, r.ts FROM "MetricRow" r
   WHERE r."runId" = run AND r.key = metric AND r.step BETWEEN lo AND hi
  UNION ALL
  SELECT b.key, p.step, p.value, timestamptz 'epoch' + p.ms * interval '1 millisecond'
    FROM "MetricBlock" b CROSS JOIN LATERAL unnest(b.steps, b."values", b."tsMs") AS p(step, value, ms)
   WHERE b."runId" = run AND b.key = metric AND b."lastStep" >= lo AND p.step BETWEEN lo AND hi
     AND b."firstStep" BETWEEN coalesce((SELECT f."firstStep" FROM "MetricBlock" f
                                          WHERE f."runId" = run AND f.key = metric AND f."firstStep" <= lo
                                          ORDER BY f."firstStep" DESC LIMIT 1), lo) AND hi
$$;

-- Deleting a run deletes its rows (its blocks go by the foreign key).
CREATE OR REPLACE FUNCTION pitwall_run_delete_metric_points() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "MetricRow" WHERE "runId" = OLD.id;
  RETURN OLD;
END;
$$;

-- `DELETE FROM "MetricPoint" WHERE …` keeps working (retention or repair by hand): a point in a
-- block first moves its whole block into "MetricRow", then the row goes.
CREATE FUNCTION pitwall_metric_point_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "MetricRow" WHERE "runId" = OLD."runId" AND key = OLD.key AND step = OLD.step;
  IF NOT FOUND THEN
    WITH gone AS (
      DELETE FROM "MetricBlock" b
       WHERE b."runId" = OLD."runId" AND b.key = OLD.key AND b."lastStep" >= OLD.step
         AND b."firstStep" = (SELECT f."firstStep" FROM "MetricBlock" f WHERE f."runId" = OLD."runId" AND f.key = OLD.key AND f."firstStep" <= OLD.step
                               ORDER BY f."firstStep" DESC LIMIT 1)
      RETURNING b."runId", b.key, b.steps, b."values", b."tsMs")
    INSERT INTO "MetricRow" ("runId", key, step, value, ts)
    SELECT g."runId", g.key, p.step, p.value, timestamptz 'epoch' + p.ms * interval '1 millisecond'
      FROM gone g CROSS JOIN LATERAL unnest(g.steps, g."values", g."tsMs") AS p(step, value, ms)
     WHERE p.step <> OLD.step;
  END IF;
  RETURN OLD;
END;
$$;

CREATE TRIGGER pitwall_metric_point_delete INSTEAD OF DELETE ON "MetricPoint"
  FOR EACH ROW EXECUTE FUNCTION pitwall_metric_point_delete();
