import type { PrismaClient } from "@/generated/prisma/client";
import {
  DEFAULT_PREFERENCES,
  toTheme,
  type Preferences,
  type PreferencesPatch,
} from "@/lib/preferences";

/** A person's stored display choices, or the defaults when they never chose. */
export async function getPreferences(db: PrismaClient, userId: string): Promise<Preferences> {
  const row = await db.userPreference.findUnique({
    where: { userId },
    select: { theme: true, timeZone: true },
  });
  return row ? { theme: toTheme(row.theme), timeZone: row.timeZone } : { ...DEFAULT_PREFERENCES };
}

/** Stores the fields present in `patch` (one upsert, safe under concurrent writes); returns the result. */
export async function updatePreferences(
  db: PrismaClient,
  userId: string,
  patch: PreferencesPatch,
): Promise<Preferences> {
  const data = {
    ...(patch.theme !== undefined ? { theme: patch.theme } : {}),
    ...(patch.timeZone !== undefined ? { timeZone: patch.timeZone } : {}),
  };
  const row = await db.userPreference.upsert({
    where: { userId },
    create: { userId, ...data },
    update: { ...data, updatedAt: new Date() },
    select: { theme: true, timeZone: true },
  });
  return { theme: toTheme(row.theme), timeZone: row.timeZone };
}
