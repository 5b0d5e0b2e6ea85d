import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { personId } from "@/lib/server/auth/person";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import {
  createSavedView,
  listSavedViews,
  savedViewInput,
} from "@/lib/server/repositories/saved-views";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

const listQuery = z.strictObject({ page: z.enum(["runs"]).default("runs") });

/** GET /api/views?page=runs → `{ views: [SavedView…] }`: the signed-in person's own views, by name. 400 bad page; 403 for a worker token. */
export const GET = withViewer("viewer", async (request, viewer) => {
  const q = listQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!q.success) return errorResponse(400, "invalid_query", describeIssues(q.error));
  return json({
    views: await listSavedViews(prisma(), personId(viewer, "saved views"), q.data.page),
  });
});

/**
 * POST /api/views `{name, query, page?}` → 201 the view (query normalised). 400 `invalid_body`
 * (blank or long name, unknown parameter or bad value in the query); 403 for a worker token or a
 * cross-site request; 409 `conflict` when the person has a view of that name or 50 views.
 */
export const POST = withViewer("viewer", async (request, viewer) => {
  const userId = personId(viewer, "saved views");
  const input = await parseJsonBody(request, savedViewInput);
  if (input instanceof Response) return input;
  return json(await createSavedView(prisma(), userId, input), 201);
});
