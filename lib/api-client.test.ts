import { afterEach, describe, expect, it, vi } from "vitest";

import { ApiError, fetchJson, parseApiJson } from "@/lib/api/client";

describe("parseApiJson", () => {
  it("turns the API's tagged non-finite numbers back into numbers, anywhere in the body", () => {
    const v = parseApiJson<{ a: number; b: number[]; c: { d: number }; s: string }>(
      '{"a":{"$num":"NaN"},"b":[{"$num":"Infinity"},{"$num":"-Infinity"},1],"c":{"d":{"$num":"NaN"}},"s":"inf"}',
    );
    expect(v.a).toBeNaN();
    expect(v.b).toEqual([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1]);
    expect(v.c.d).toBeNaN();
    expect(v.s).toBe("inf");
  });

  it("leaves every string a string: a name 'NaN' or a status 'Infinity' is text (issue 19)", () => {
    const v = parseApiJson<{ name: string; status: string; items: string[] }>(
      '{"name":"NaN","status":"Infinity","items":["-Infinity","NaN"]}',
    );
    expect(v).toEqual({ name: "NaN", status: "Infinity", items: ["-Infinity", "NaN"] });
  });
});

describe("fetchJson", () => {
  afterEach(() => vi.unstubAllGlobals());
  it("throws ApiError with the body's code and message", async () => {
    vi.stubGlobal(
      "fetch",
      async () =>
        new Response('{"error":{"code":"not_found","message":"run 9 not found"}}', { status: 404 }),
    );
    await expect(fetchJson("/api/runs/9")).rejects.toEqual(
      new ApiError(404, "not_found", "run 9 not found"),
    );
  });
  it("keeps the status line when the error body is not JSON", async () => {
    vi.stubGlobal(
      "fetch",
      async () =>
        new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" }),
    );
    await expect(fetchJson("/api/runs")).rejects.toMatchObject({
      status: 502,
      code: "http_error",
      message: "502 Bad Gateway",
    });
  });
});
