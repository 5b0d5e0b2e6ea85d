import { z } from "zod";

/** Colour themes a person can choose: follow the browser's preference, or force one. */
export const THEMES = ["system", "light", "dark"] as const;
/** One of {@link THEMES}. */
export type Theme = (typeof THEMES)[number];

/** A person's display choices. `timeZone` null = the browser's own zone. */
export interface Preferences {
  theme: Theme;
  timeZone: string | null;
}

/** What a person gets before choosing anything. */
export const DEFAULT_PREFERENCES: Preferences = { theme: "system", timeZone: null };

/** True when `zone` is an IANA zone name this runtime knows ("Europe/Berlin", "UTC"). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Body of `PUT /api/me/preferences`: either field or both. `timeZone` null resets to the
 * browser's zone; an unknown zone is an issue naming it.
 */
export const preferencesPatch = z
  .strictObject({
    theme: z.enum(THEMES).optional(),
    timeZone: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .superRefine((zone, ctx) => {
        if (!isTimeZone(zone))
          ctx.addIssue({
            code: "custom",
            message: `unknown time zone "${zone}" (use an IANA name such as Europe/Berlin)`,
          });
      })
      .nullable()
      .optional(),
  })
  .refine((p) => p.theme !== undefined || p.timeZone !== undefined, {
    message: "send theme, timeZone or both",
  });
/** Parsed {@link preferencesPatch}. */
export type PreferencesPatch = z.infer<typeof preferencesPatch>;

/** Parses a stored theme string; anything unknown is "system". */
export function toTheme(value: string | null | undefined): Theme {
  return (THEMES as readonly string[]).includes(value ?? "") ? (value as Theme) : "system";
}

/** Zones offered in the picker: every zone the runtime lists, with UTC first. */
export function timeZoneChoices(): string[] {
  const listed =
    typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return ["UTC", ...listed.filter((z) => z !== "UTC")];
}
