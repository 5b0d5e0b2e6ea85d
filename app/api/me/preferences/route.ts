import {
  getPreferencesRoute,
  putPreferencesRoute,
  type PreferencesResponse,
} from "@/lib/api/preferences";
import { personId } from "@/lib/server/auth/person";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { getPreferences, updatePreferences } from "@/lib/server/repositories/preferences";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/me/preferences → `{theme, timeZone}` of the signed-in person. 401 signed out; 403 for a worker token. */
export const GET = apiRoute("viewer", getPreferencesRoute, async (_input, _request, viewer) => {
  const answer: PreferencesResponse = await getPreferences(
    prisma(),
    personId(viewer, "preferences"),
  );
  return json(answer);
});

/**
 * PUT /api/me/preferences `{theme?, timeZone?}` → 200 the stored preferences. 400 `invalid_body`
 * (unknown theme or zone, no field, extra keys); 401 signed out; 403 worker token or cross-site.
 */
export const PUT = apiRoute("viewer", putPreferencesRoute, async ({ body }, _request, viewer) => {
  const answer: PreferencesResponse = await updatePreferences(
    prisma(),
    personId(viewer, "preferences"),
    body,
  );
  return json(answer);
});
