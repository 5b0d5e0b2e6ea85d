import {
  createSavedViewRoute,
  listSavedViewsRoute,
  type ListSavedViewsResponse,
  type SavedViewResponse,
} from "@/lib/api/views";
import { personId } from "@/lib/server/auth/person";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { createSavedView, listSavedViews } from "@/lib/server/repositories/saved-views";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/views?page=runs → `{ views: [SavedView…] }`: the signed-in person's own views, by name. 400 bad page; 403 for a worker token. */
export const GET = apiRoute("viewer", listSavedViewsRoute, async ({ query }, _request, viewer) => {
  const answer: ListSavedViewsResponse = {
    views: await listSavedViews(prisma(), personId(viewer, "saved views"), query.page),
  };
  return json(answer);
});

/**
 * POST /api/views `{name, query, page?}` → 201 the view (query normalised). 400 `invalid_body`
 * (blank or long name, unknown parameter or bad value in the query); 403 for a worker token or a
 * cross-site request; 409 `conflict` when the person has a view of that name or 50 views.
 */
export const POST = apiRoute("viewer", createSavedViewRoute, async ({ body }, _request, viewer) => {
  const view: SavedViewResponse = await createSavedView(
    prisma(),
    personId(viewer, "saved views"),
    body,
  );
  return json(view, 201);
});
