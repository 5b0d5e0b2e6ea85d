import { z } from "zod";

import type { SearchResults } from "@/lib/view-models/search";

import { defineRoute } from "./contract";

/** Contract of `GET /api/search`. */

/** Query of `GET /api/search`: `q` 1-200 characters after trimming; `limit` hits per kind (1-20, default 6). */
export const searchQuery = z.object({
  q: z.string().trim().min(1, "q must not be empty").max(200, "q is at most 200 characters"),
  limit: z.coerce.number().int().min(1).max(20).default(6),
});

/** A parsed search query. */
export type SearchQuery = z.infer<typeof searchQuery>;

/** `GET /api/search?q&limit` → runs, sessions, plans, hosts and checkpoints matching `q`. */
export const searchRoute = defineRoute({ route: "GET /api/search", query: searchQuery });
/** Answer of {@link searchRoute}. */
export type SearchResponse = SearchResults;
