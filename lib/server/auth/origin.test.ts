import { describe, expect, test } from "vitest";

import { crossSiteReason, isSameOrigin, requestOrigin } from "./origin";

const h = (init: Record<string, string>) => new Headers(init);

describe("isSameOrigin", () => {
  test("Origin's host:port must be the Host (or X-Forwarded-Host) the request was sent to", () => {
    expect(isSameOrigin("http://kpro5:8080", h({ host: "kpro5:8080" }))).toBe(true);
    expect(isSameOrigin("https://kpro5:8080", h({ host: "KPRO5:8080" }))).toBe(true);
    expect(isSameOrigin("http://kpro5:8888", h({ host: "kpro5:8080" }))).toBe(false); // same site, other service
    expect(isSameOrigin("http://evil.example", h({ host: "kpro5:8080" }))).toBe(false);
    expect(
      isSameOrigin(
        "https://pitwall.example",
        h({ host: "127.0.0.1:8080", "x-forwarded-host": "pitwall.example" }),
      ),
    ).toBe(true);
    expect(isSameOrigin("null", h({ host: "kpro5:8080" }))).toBe(false);
    expect(isSameOrigin("file://kpro5:8080", h({ host: "kpro5:8080" }))).toBe(false);
  });

  test("exact trusted origins (PITWALL_PUBLIC_URL) are accepted too", () => {
    expect(
      isSameOrigin("https://pitwall.example", h({ host: "127.0.0.1:8080" }), [
        "https://pitwall.example",
      ]),
    ).toBe(true);
    expect(
      isSameOrigin("http://pitwall.example", h({ host: "127.0.0.1:8080" }), [
        "https://pitwall.example",
      ]),
    ).toBe(false);
  });
});

describe("crossSiteReason", () => {
  test("a foreign Origin is refused for any method; a missing one only for state-changing methods", () => {
    const site = { host: "kpro5:8080" };
    expect(crossSiteReason(h({ ...site, origin: "http://kpro5:8080" }), "POST")).toBeNull();
    expect(crossSiteReason(h({ ...site, origin: "http://evil.example" }), "GET")).toMatch(
      /evil\.example/,
    );
    expect(crossSiteReason(h({ ...site, origin: "http://evil.example" }), undefined)).toMatch(
      /cross-site/,
    );
    expect(crossSiteReason(h(site), "GET")).toBeNull();
    expect(crossSiteReason(h(site), undefined)).toBeNull();
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "post"])
      expect(crossSiteReason(h(site), method), method).toMatch(/Origin/);
    expect(crossSiteReason(h({ ...site, "sec-fetch-site": "same-origin" }), "DELETE")).toBeNull();
    expect(crossSiteReason(h({ ...site, "sec-fetch-site": "same-site" }), "POST")).not.toBeNull();
  });
});

describe("requestOrigin", () => {
  test("built from X-Forwarded-Proto/-Host behind a proxy, else Host over http", () => {
    expect(requestOrigin(h({ host: "kpro5:8080" }))).toBe("http://kpro5:8080");
    expect(
      requestOrigin(
        h({
          host: "127.0.0.1:8080",
          "x-forwarded-host": "pitwall.example, proxy2",
          "x-forwarded-proto": "https,http",
        }),
      ),
    ).toBe("https://pitwall.example");
    expect(requestOrigin(h({}))).toBeNull();
  });
});
