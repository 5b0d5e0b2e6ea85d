import { z } from "zod";

import type { EvalOverviewView } from "@/lib/view-models/evals";

import { defineRoute, emptyAsAbsent } from "./contract";

/** Contract of `GET /api/evals` (a run's evaluations: lib/api/runs.ts `runEvalsRoute`). */

/** Filters of the τ overview (the /evals page and `GET /api/evals`); both optional. */
export const evalOverviewQuery = z.object({
  category: z.string().min(1).max(200).optional(),
  dataset: z.string().min(1).max(200).optional(),
});
/** Parsed {@link evalOverviewQuery}. */
export type EvalOverviewQuery = z.infer<typeof evalOverviewQuery>;

/** `GET /api/evals?category&dataset` → τ by checkpoint across runs; empty parameters mean "no filter". */
export const evalOverviewRoute = defineRoute({
  route: "GET /api/evals",
  query: z.object({
    category: emptyAsAbsent(evalOverviewQuery.shape.category.unwrap()),
    dataset: emptyAsAbsent(evalOverviewQuery.shape.dataset.unwrap()),
  }),
});
/** Answer of {@link evalOverviewRoute}. */
export type EvalOverviewResponse = EvalOverviewView;
