import { z } from "zod";

import { describeIssues } from "@/lib/protocol";
import { personId } from "@/lib/server/auth/person";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import {
  deleteSavedView,
  savedViewPatch,
  updateSavedView,
} from "@/lib/server/repositories/saved-views";

const params = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
type Ctx = { params: Promise<{ id: string }> };

/**
 * PATCH /api/views/:id `{name?, query?}` → the view. 400 bad id or body; 403 worker token or
 * cross-site; 404 when the person has no view of this id (another person's view is not found
 * either); 409 `conflict` when renamed onto another of their views.
 */
export const PATCH = withViewer("viewer", async (request, viewer, ctx: Ctx) => {
  const userId = personId(viewer, "saved views");
  const p = params.safeParse(await ctx.params);
  if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
  const patch = await parseJsonBody(request, savedViewPatch);
  if (patch instanceof Response) return patch;
  return json(await updateSavedView(prisma(), userId, p.data.id, patch));
});

/** DELETE /api/views/:id → 204. 400 bad id; 403 worker token or cross-site; 404 not the person's view. */
export const DELETE = withViewer("viewer", async (_request, viewer, ctx: Ctx) => {
  const userId = personId(viewer, "saved views");
  const p = params.safeParse(await ctx.params);
  if (!p.success) return errorResponse(400, "invalid_query", describeIssues(p.error));
  await deleteSavedView(prisma(), userId, p.data.id);
  return new Response(null, { status: 204 });
});
