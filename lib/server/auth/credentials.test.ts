import { describe, expect, test } from "vitest";

import { bearerToken, hasSessionCookie } from "./credentials";

describe("credentials", () => {
  test("bearerToken takes Bearer only; other schemes (a proxy's Basic) are not ours", () => {
    expect(bearerToken(new Headers({ authorization: "Bearer pw_abc" }))).toBe("pw_abc");
    expect(bearerToken(new Headers({ authorization: "bearer   pw_abc  " }))).toBe("pw_abc");
    expect(bearerToken(new Headers({ authorization: "Bearer" }))).toBe("");
    expect(bearerToken(new Headers({ authorization: "Basic dXNlcjpwYXNz" }))).toBeNull();
    expect(bearerToken(new Headers({ authorization: "Bearerish x" }))).toBeNull();
    expect(bearerToken(new Headers())).toBeNull();
  });

  test("hasSessionCookie sees our cookie, plain or __Secure-, and nothing else", () => {
    expect(hasSessionCookie(new Headers({ cookie: "a=1; pitwall.session_token=t.sig" }))).toBe(
      true,
    );
    expect(hasSessionCookie(new Headers({ cookie: "__Secure-pitwall.session_token=t.sig" }))).toBe(
      true,
    );
    expect(hasSessionCookie(new Headers({ cookie: "better-auth.session_token=t.sig" }))).toBe(
      false,
    );
    expect(hasSessionCookie(new Headers())).toBe(false);
  });
});
