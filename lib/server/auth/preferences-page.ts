import { unstable_rethrow } from "next/navigation";
import { cache } from "react";

import { DEFAULT_PREFERENCES, type Preferences } from "@/lib/preferences";
import { prisma } from "@/lib/server/db";
import { getPreferences } from "@/lib/server/repositories/preferences";

import { currentViewer } from "./page";

/**
 * The display choices of the person viewing the page being rendered (once per request), and
 * whether they can store choices (a signed-in person). Defaults when signed out or when the
 * lookup fails: a broken preference read must not take a page down.
 */
export const currentPreferences = cache(
  async (): Promise<{ preferences: Preferences; canSave: boolean }> => {
    try {
      const viewer = await currentViewer();
      if (viewer?.kind !== "user") return { preferences: DEFAULT_PREFERENCES, canSave: false };
      return { preferences: await getPreferences(prisma(), viewer.id), canSave: true };
    } catch (err) {
      unstable_rethrow(err);
      return { preferences: DEFAULT_PREFERENCES, canSave: false };
    }
  },
);
