import { deleteSavedViewRoute, patchSavedViewRoute, type SavedViewResponse } from "@/lib/api/views";
import { personId } from "@/lib/server/auth/person";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { deleteSavedView, updateSavedView } from "@/lib/server/repositories/saved-views";
import { apiRoute } from "@/lib/server/route-input";

/**
 * PATCH /api/views/:id `{name?, query?}` → the view. 400 bad id or body; 403 worker token or
 * cross-site; 404 when the person has no view of this id (another person's view is not found
 * either); 409 `conflict` when renamed onto another of their views.
 */
export const PATCH = apiRoute(
  "viewer",
  patchSavedViewRoute,
  async ({ params, body }, _request, viewer) => {
    const view: SavedViewResponse = await updateSavedView(
      prisma(),
      personId(viewer, "saved views"),
      params.id,
      body,
    );
    return json(view);
  },
);

/** DELETE /api/views/:id → 204. 400 bad id; 403 worker token or cross-site; 404 not the person's view. */
export const DELETE = apiRoute(
  "viewer",
  deleteSavedViewRoute,
  async ({ params }, _request, viewer) => {
    await deleteSavedView(prisma(), personId(viewer, "saved views"), params.id);
    return new Response(null, { status: 204 });
  },
);
