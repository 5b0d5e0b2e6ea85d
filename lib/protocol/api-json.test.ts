import { describe, expect, it } from "vitest";

import { parseApiJsonText, stringifyApiJson } from "./api-json";

describe("API JSON", () => {
  it("tags non-finite numbers and leaves look-alike strings alone", () => {
    const text = stringifyApiJson({
      a: Number.NaN,
      b: [Infinity, -Infinity, 1.5],
      name: "NaN",
      status: "Infinity",
      big: 2n ** 64n,
    });
    expect(JSON.parse(text)).toEqual({
      a: { $num: "NaN" },
      b: [{ $num: "Infinity" }, { $num: "-Infinity" }, 1.5],
      name: "NaN",
      status: "Infinity",
      big: "18446744073709551616",
    });
    const back = parseApiJsonText<Record<string, unknown>>(text);
    expect(back.a).toBeNaN();
    expect(back.b).toEqual([Infinity, -Infinity, 1.5]);
    expect(back.name).toBe("NaN");
    expect(back.status).toBe("Infinity");
  });

  it("escapes data objects that look like a tag, so they come back as the same objects", () => {
    const config = { $num: "NaN" };
    const nested = { $obj: [["x", 1]] };
    const odd = { $num: "Infinity", other: 1 };
    const text = stringifyApiJson({ config, nested, odd });
    expect(parseApiJsonText(text)).toEqual({ config, nested, odd });
  });

  it("round-trips dates as ISO strings", () => {
    expect(
      parseApiJsonText(stringifyApiJson({ at: new Date("2026-12-05T20:00:00.000Z") })),
    ).toEqual({ at: "2026-12-05T20:00:00.000Z" });
  });
});
