import { z } from "zod";

import type { OverviewView } from "@/lib/view-models/overview";

import { defineRoute } from "./contract";

/** Contract of `GET /api/overview`. */

/** Active runs shown per page of the overview by default, and at most. */
export const OVERVIEW_PAGE = { defaultLimit: 50, maxLimit: 200 } as const;

/** `GET /api/overview?offset&limit` → one page of active runs with counts, hosts, events, finished runs. */
export const overviewRoute = defineRoute({
  route: "GET /api/overview",
  query: z.object({
    offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(OVERVIEW_PAGE.maxLimit)
      .default(OVERVIEW_PAGE.defaultLimit),
  }),
});
/** Answer of {@link overviewRoute}. */
export type OverviewResponse = OverviewView;
