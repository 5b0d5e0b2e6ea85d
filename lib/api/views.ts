import { z } from "zod";

import { parseRunListQuery, runListSearch } from "@/lib/paths";
import type { SavedViewView } from "@/lib/view-models";

import { defineRoute, idParams } from "./contract";

/** Contracts of the saved-view routes (`/api/views…`). */

/** Run-list parameters a saved view may hold (the cursor is a position, not a view). */
const RUN_VIEW_PARAMS = new Set([
  "kind",
  "status",
  "host",
  "tag",
  "q",
  "archived",
  "sweep",
  "sort",
  "dir",
  "group",
  "cols",
]);

/**
 * A /runs query string ("kind=benchmark&sort=peak", a leading "?" allowed), checked and
 * normalised to the order and spelling `runsPath` writes; unknown parameters, a cursor or an
 * invalid value are issues naming the parameter.
 */
const runViewQuery = z
  .string()
  .max(2000)
  .transform((text, ctx) => {
    const sp = new URLSearchParams(text.startsWith("?") ? text.slice(1) : text);
    const unknown = [...new Set(sp.keys())].filter((k) => !RUN_VIEW_PARAMS.has(k));
    if (unknown.length > 0)
      ctx.addIssue({
        code: "custom",
        message: `query: unknown parameter${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`,
      });
    const { query, ignored } = parseRunListQuery(Object.fromEntries(sp));
    if (ignored.length > 0)
      ctx.addIssue({ code: "custom", message: `query: invalid value of ${ignored.join(", ")}` });
    return runListSearch(query);
  });

const viewName = z.string().trim().min(1, "name cannot be blank").max(80);

/** Body of `POST /api/views`: `{name, query, page?}` (page "runs", the only list with views so far). */
export const savedViewInput = z.strictObject({
  page: z.enum(["runs"]).default("runs"),
  name: viewName,
  query: runViewQuery,
});
/** Parsed {@link savedViewInput}. */
export type SavedViewInput = z.infer<typeof savedViewInput>;

/** Body of `PATCH /api/views/:id`: a new name, a new query, or both. */
export const savedViewPatch = z
  .strictObject({ name: viewName.optional(), query: runViewQuery.optional() })
  .refine((p) => p.name !== undefined || p.query !== undefined, "send name, query or both");
/** Parsed {@link savedViewPatch}. */
export type SavedViewPatch = z.infer<typeof savedViewPatch>;

/** Path parameters of `/api/views/:id` (a 32-bit id). */
export const savedViewIdParams = idParams("view", 2_147_483_647);

/** `GET /api/views?page=runs` → the signed-in person's own views, by name. */
export const listSavedViewsRoute = defineRoute({
  route: "GET /api/views",
  query: z.strictObject({ page: z.enum(["runs"]).default("runs") }),
});
/** Answer of {@link listSavedViewsRoute}. */
export interface ListSavedViewsResponse {
  views: SavedViewView[];
}

/** `POST /api/views` → 201 the view (query normalised). */
export const createSavedViewRoute = defineRoute({ route: "POST /api/views", body: savedViewInput });
/** Answer of {@link createSavedViewRoute} and {@link patchSavedViewRoute}. */
export type SavedViewResponse = SavedViewView;

/** `PATCH /api/views/:id` → the view. */
export const patchSavedViewRoute = defineRoute({
  route: "PATCH /api/views/:id",
  params: savedViewIdParams,
  body: savedViewPatch,
});

/** `DELETE /api/views/:id` → 204. */
export const deleteSavedViewRoute = defineRoute({
  route: "DELETE /api/views/:id",
  params: savedViewIdParams,
});
