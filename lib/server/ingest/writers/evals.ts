import type pg from "pg";
import type { z } from "zod";

import { toJsonSafe, type baselineUpsertFrame, type evalResult } from "@/lib/protocol";

type EvalResult = z.infer<typeof evalResult>;

/**
 * Upserts eval results by (run, key) with one multi-row statement per run; within a statement
 * the latest occurrence of a key wins (Postgres refuses to update one row twice).
 */
export async function upsertEvalResults(
  client: pg.PoolClient,
  items: Array<{ runId: number; result: EvalResult }>,
  at: Date,
): Promise<void> {
  const byRun = new Map<number, Map<string, EvalResult>>();
  for (const { runId, result } of items) {
    let rows = byRun.get(runId);
    if (!rows) byRun.set(runId, (rows = new Map()));
    rows.delete(result.key);
    rows.set(result.key, result);
  }
  for (const [runId, rowMap] of byRun) {
    const rows = [...rowMap.values()];
    await client.query(
      `INSERT INTO "EvalResult" ("runId", key, "checkpointStep", "checkpointLabel", "checkpointUri", "promptId", category, dataset,
         "verifySteps", "acceptedTokens", draft, "outputTokPerS", ts)
       SELECT $1::int4, * FROM unnest($2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::float8[], $10::float8[], $11::jsonb[], $12::float8[], $13::timestamptz[])
       ON CONFLICT ("runId", key) DO UPDATE SET "checkpointStep" = EXCLUDED."checkpointStep", "checkpointLabel" = EXCLUDED."checkpointLabel",
         "checkpointUri" = EXCLUDED."checkpointUri", "promptId" = EXCLUDED."promptId", category = EXCLUDED.category, dataset = EXCLUDED.dataset,
         "verifySteps" = EXCLUDED."verifySteps", "acceptedTokens" = EXCLUDED."acceptedTokens", draft = EXCLUDED.draft,
         "outputTokPerS" = EXCLUDED."outputTokPerS", ts = EXCLUDED.ts`,
      [
        runId,
        rows.map((r) => r.key),
        rows.map((r) => (r.checkpoint.step === undefined ? null : String(r.checkpoint.step))),
        rows.map((r) => r.checkpoint.label ?? null),
        rows.map((r) => r.checkpoint.uri ?? null),
        rows.map((r) => r.promptId),
        rows.map((r) => r.category ?? null),
        rows.map((r) => r.dataset ?? null),
        rows.map((r) => r.verifySteps),
        rows.map((r) => r.acceptedTokens),
        rows.map((r) => JSON.stringify(toJsonSafe(r.draft ?? {}))),
        rows.map((r) => r.outputTokPerS ?? null),
        rows.map((r) => (r.ts ? new Date(r.ts) : at)),
      ],
    );
  }
}

/**
 * Creates or updates a reference baseline by name; its owner is the first writing token's host
 * (group-admission.ts has checked this token may change it). A baseline another host claimed
 * between that check and this write (two hosts creating it at once) keeps the first writer's
 * values unless `shared`.
 */
export async function upsertBaseline(
  client: pg.PoolClient,
  f: z.infer<typeof baselineUpsertFrame>,
  at: Date,
  ownerHostId: number,
  shared: boolean,
): Promise<void> {
  await client.query(
    `INSERT INTO "Baseline" (name, metric, value, tolerance, dataset, settings, "sourceUrl", "updatedAt", "ownerHostId") VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
     ON CONFLICT (name) DO UPDATE SET metric = EXCLUDED.metric, value = EXCLUDED.value, tolerance = EXCLUDED.tolerance, dataset = EXCLUDED.dataset,
       settings = EXCLUDED.settings, "sourceUrl" = EXCLUDED."sourceUrl", "updatedAt" = EXCLUDED."updatedAt",
       "ownerHostId" = COALESCE("Baseline"."ownerHostId", EXCLUDED."ownerHostId")
     WHERE $10 OR "Baseline"."ownerHostId" IS NULL OR "Baseline"."ownerHostId" = EXCLUDED."ownerHostId"`,
    [
      f.name,
      f.metric,
      f.value,
      f.tolerance ?? null,
      f.dataset ?? null,
      JSON.stringify(f.settings ?? {}),
      f.sourceUrl ?? null,
      at,
      ownerHostId,
      shared,
    ],
  );
}
