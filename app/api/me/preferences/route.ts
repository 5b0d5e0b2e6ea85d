import { preferencesPatch } from "@/lib/preferences";
import { personId } from "@/lib/server/auth/person";
import { prisma } from "@/lib/server/db";
import { json, parseJsonBody, withViewer } from "@/lib/server/http";
import { getPreferences, updatePreferences } from "@/lib/server/repositories/preferences";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/me/preferences → `{theme, timeZone}` of the signed-in person. 401 signed out; 403 for a worker token. */
export const GET = withViewer("viewer", async (_request, viewer) =>
  json(await getPreferences(prisma(), personId(viewer, "preferences"))),
);

/**
 * PUT /api/me/preferences `{theme?, timeZone?}` → 200 the stored preferences. 400 `invalid_body`
 * (unknown theme or zone, no field, extra keys); 401 signed out; 403 worker token or cross-site.
 */
export const PUT = withViewer("viewer", async (request, viewer) => {
  const userId = personId(viewer, "preferences");
  const patch = await parseJsonBody(request, preferencesPatch);
  if (patch instanceof Response) return patch;
  return json(await updatePreferences(prisma(), userId, patch));
});
