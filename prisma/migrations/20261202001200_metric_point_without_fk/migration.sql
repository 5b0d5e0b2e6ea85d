-- DropForeignKey
ALTER TABLE "MetricPoint" DROP CONSTRAINT "MetricPoint_runId_fkey";

-- Deleting a run still deletes its points (what ON DELETE CASCADE did), by a trigger that the
-- Prisma schema does not describe (Prisma's diff ignores triggers and functions).
CREATE FUNCTION pitwall_run_delete_metric_points() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "MetricPoint" WHERE "runId" = OLD.id;
  RETURN OLD;
END;
$$;

CREATE TRIGGER pitwall_run_delete_metric_points AFTER DELETE ON "Run"
  FOR EACH ROW EXECUTE FUNCTION pitwall_run_delete_metric_points();
