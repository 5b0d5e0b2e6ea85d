import { z } from "zod";

import { baselineUpsertFrame } from "@/lib/protocol";
import type { BaselineListView, BaselineView } from "@/lib/view-models/evals";

import { defineRoute, idParams } from "./contract";

/** Contracts of the baseline routes (`/api/baselines…`). */

const frameFields = baselineUpsertFrame.shape;

/** Body of `POST /api/baselines`: the `baseline.upsert` frame's fields and limits. */
export const baselineInput = z.strictObject({
  name: frameFields.name,
  metric: frameFields.metric,
  value: frameFields.value,
  tolerance: frameFields.tolerance,
  dataset: frameFields.dataset,
  settings: frameFields.settings,
  sourceUrl: frameFields.sourceUrl,
});
/** Parsed {@link baselineInput}. */
export type BaselineInput = z.infer<typeof baselineInput>;

/** Body of `PATCH /api/baselines/:id`: any of the fields; null clears an optional one. At least one field. */
export const baselinePatch = z
  .strictObject({
    name: frameFields.name.optional(),
    metric: frameFields.metric.optional(),
    value: frameFields.value.optional(),
    tolerance: frameFields.tolerance.unwrap().nullable().optional(),
    dataset: frameFields.dataset.unwrap().nullable().optional(),
    settings: frameFields.settings,
    sourceUrl: frameFields.sourceUrl.unwrap().nullable().optional(),
  })
  .refine((p) => Object.keys(p).length > 0, { message: "send at least one field to change" });
/** Parsed {@link baselinePatch}. */
export type BaselinePatch = z.infer<typeof baselinePatch>;

/** Path parameters of `/api/baselines/:id` (a 32-bit id). */
export const baselineIdParams = idParams("baseline", 2_147_483_647);

/** `GET /api/baselines` → every reference baseline, by metric then name. */
export const listBaselinesRoute = defineRoute({ route: "GET /api/baselines" });
/** Answer of {@link listBaselinesRoute}. */
export type ListBaselinesResponse = BaselineListView;

/** `POST /api/baselines` (approvers) → 201 the baseline; 409 `baseline_exists`. */
export const createBaselineRoute = defineRoute({
  route: "POST /api/baselines",
  body: baselineInput,
});
/** Answer of {@link createBaselineRoute} and {@link patchBaselineRoute}. */
export type BaselineResponse = BaselineView;

/** `PATCH /api/baselines/:id` (approvers) → the baseline. */
export const patchBaselineRoute = defineRoute({
  route: "PATCH /api/baselines/:id",
  params: baselineIdParams,
  body: baselinePatch,
});

/** `DELETE /api/baselines/:id` (approvers) → 204. */
export const deleteBaselineRoute = defineRoute({
  route: "DELETE /api/baselines/:id",
  params: baselineIdParams,
});
