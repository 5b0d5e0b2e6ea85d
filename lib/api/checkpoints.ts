import { z } from "zod";

import type { CheckpointLineageView, CheckpointListView } from "@/lib/view-models/lineage";

import { defineRoute } from "./contract";

/** Contracts of the checkpoint routes (`/api/checkpoints…`). */

/** Default number of checkpoints `GET /api/checkpoints` returns. */
export const DEFAULT_CHECKPOINT_LIMIT = 100;
/** Largest `limit` of `GET /api/checkpoints`. */
export const MAX_CHECKPOINT_LIMIT = 500;

/** `GET /api/checkpoints?limit` → checkpoints newest first with producer, eval and benchmark counts. */
export const listCheckpointsRoute = defineRoute({
  route: "GET /api/checkpoints",
  query: z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_CHECKPOINT_LIMIT)
      .default(DEFAULT_CHECKPOINT_LIMIT),
  }),
});
/** Answer of {@link listCheckpointsRoute}. */
export type ListCheckpointsResponse = CheckpointListView;

/** `GET /api/checkpoints/lineage?uri` → the checkpoint's producing, eval and benchmark runs. */
export const checkpointLineageRoute = defineRoute({
  route: "GET /api/checkpoints/lineage",
  query: z.object({ uri: z.string().min(1).max(2000) }),
});
/** Answer of {@link checkpointLineageRoute}. */
export type CheckpointLineageResponse = CheckpointLineageView;
