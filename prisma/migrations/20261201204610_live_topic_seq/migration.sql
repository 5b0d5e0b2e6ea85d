-- CreateTable
CREATE TABLE "LiveTopic" (
    "topic" TEXT NOT NULL,
    "seq" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "LiveTopic_pkey" PRIMARY KEY ("topic")
);

-- Announces changed live topics (NOTIFY on pitwall_live). Topics browsers merge deltas for
-- (`run:<id>`) get their LiveTopic.seq bumped first and carry it in the payload; the rows are
-- locked in text order, so concurrent publishers never deadlock on them. Runs inside the
-- caller's transaction: the notification and the new seq become visible at its commit.
CREATE FUNCTION pitwall_publish(topics TEXT[]) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  t TEXT;
  s BIGINT;
BEGIN
  FOR t IN SELECT DISTINCT u FROM unnest(topics) AS u ORDER BY 1 LOOP
    IF t ~ '^run:[0-9]+$' THEN
      INSERT INTO "LiveTopic" ("topic", "seq") VALUES (t, 1)
        ON CONFLICT ("topic") DO UPDATE SET "seq" = "LiveTopic"."seq" + 1
        RETURNING "seq" INTO s;
      PERFORM pg_notify('pitwall_live', json_build_object('topic', t, 'seq', s)::text);
    ELSE
      PERFORM pg_notify('pitwall_live', json_build_object('topic', t)::text);
    END IF;
  END LOOP;
END
$$;
