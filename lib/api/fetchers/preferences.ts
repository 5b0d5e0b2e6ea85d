import { apiPath, sendJson } from "@/lib/api/client";
import { putPreferencesRoute, type PreferencesResponse } from "@/lib/api/preferences";
import type { PreferencesPatch } from "@/lib/preferences";

/**
 * The browser's typed reads and writes of the signed-in person's preferences, built from the
 * contracts of lib/api/preferences.ts (keys: lib/api/query-keys.ts). Every function throws
 * ApiError for a non-2xx answer and TypeError when the network fails.
 */

/** Stores the signed-in person's display choices (`PUT /api/me/preferences`) → what was stored. @throws ApiError 400 `invalid_body`, 403 for a worker token. */
export function putPreferences(patch: PreferencesPatch): Promise<PreferencesResponse> {
  return sendJson<PreferencesResponse>("PUT", apiPath(putPreferencesRoute), patch);
}
