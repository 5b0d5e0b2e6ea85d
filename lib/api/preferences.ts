import { preferencesPatch, type Preferences } from "@/lib/preferences";

import { defineRoute } from "./contract";

/** Contracts of `/api/me/preferences`; the body's schema: lib/preferences.ts. */

/** `GET /api/me/preferences` → the signed-in person's `{theme, timeZone}`. */
export const getPreferencesRoute = defineRoute({ route: "GET /api/me/preferences" });
/** Answer of {@link getPreferencesRoute} and {@link putPreferencesRoute}. */
export type PreferencesResponse = Preferences;

/** `PUT /api/me/preferences` `{theme?, timeZone?}` → the stored preferences. */
export const putPreferencesRoute = defineRoute({
  route: "PUT /api/me/preferences",
  body: preferencesPatch,
});
