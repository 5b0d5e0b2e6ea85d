import { describe, expect, test } from "vitest";

import { isTimeZone, preferencesPatch, timeZoneChoices, toTheme } from "./preferences";

describe("preferences", () => {
  test("a patch takes a theme, an IANA zone, null (the browser's zone) or both", () => {
    expect(preferencesPatch.parse({ theme: "dark" })).toEqual({ theme: "dark" });
    expect(preferencesPatch.parse({ timeZone: " Asia/Tokyo " })).toEqual({
      timeZone: "Asia/Tokyo",
    });
    expect(preferencesPatch.parse({ timeZone: null, theme: "system" })).toEqual({
      timeZone: null,
      theme: "system",
    });
  });

  test("bad input is refused with a message naming the problem", () => {
    const zone = preferencesPatch.safeParse({ timeZone: "Mars/Olympus" });
    expect(zone.success).toBe(false);
    expect(zone.error?.issues[0]?.message).toContain('unknown time zone "Mars/Olympus"');
    expect(preferencesPatch.safeParse({ theme: "sepia" }).success).toBe(false);
    expect(preferencesPatch.safeParse({}).error?.issues[0]?.message).toBe(
      "send theme, timeZone or both",
    );
    expect(preferencesPatch.safeParse({ theme: "dark", colour: "red" }).success).toBe(false);
  });

  test("zones and themes", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Europe/Nowhere")).toBe(false);
    const zones = timeZoneChoices();
    expect(zones[0]).toBe("UTC");
    expect(zones).toContain("America/New_York");
    expect(toTheme("dark")).toBe("dark");
    expect(toTheme("neon")).toBe("system");
  });
});
