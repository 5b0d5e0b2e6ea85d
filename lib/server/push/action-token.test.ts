import { expect, test } from "vitest";

import {
  ActionTokenError,
  MAX_TOKEN_LIFETIME_S,
  signActionToken,
  verifyActionToken,
} from "./action-token";

// The action tokens of notification buttons: signed claims that verify under their secret only,
// until their expiry (capped at one hour), and whose every change breaks the signature.

const SECRET = "s".repeat(43);
const at = new Date("2026-12-06T10:00:00Z");
const claim = {
  item: "12",
  action: "allow" as const,
  userId: "u1",
  expiresAt: new Date(at.getTime() + 600_000),
};

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ActionTokenError);
    return (err as ActionTokenError).code;
  }
  return "none";
}

test("a token verifies to its claims until its expiry, then is expired", () => {
  const { token, claims } = signActionToken(SECRET, claim, at);
  expect(verifyActionToken(SECRET, token, at)).toEqual(claims);
  expect(claims).toMatchObject({ i: "12", a: "allow", u: "u1", e: at.getTime() / 1000 + 600 });
  expect(codeOf(() => verifyActionToken(SECRET, token, new Date(at.getTime() + 600_000)))).toBe(
    "token_expired",
  );
});

test("the lifetime is capped at one hour even for an item that waits longer", () => {
  const long = { ...claim, expiresAt: new Date(at.getTime() + 86_400_000) };
  expect(signActionToken(SECRET, long, at).claims.e).toBe(
    at.getTime() / 1000 + MAX_TOKEN_LIFETIME_S,
  );
});

test("two tokens of the same decision differ (each has its own id)", () => {
  expect(signActionToken(SECRET, claim, at).claims.j).not.toBe(
    signActionToken(SECRET, claim, at).claims.j,
  );
});

test("another secret, changed claims, a cut signature or garbage are invalid", () => {
  const { token } = signActionToken(SECRET, claim, at);
  expect(codeOf(() => verifyActionToken("x".repeat(43), token, at))).toBe("token_invalid");
  const [body, sig] = token.split(".") as [string, string];
  const claims = JSON.parse(Buffer.from(body, "base64url").toString()) as Record<string, unknown>;
  const changed = Buffer.from(JSON.stringify({ ...claims, i: "13" })).toString("base64url");
  expect(codeOf(() => verifyActionToken(SECRET, `${changed}.${sig}`, at))).toBe("token_invalid");
  expect(codeOf(() => verifyActionToken(SECRET, `${body}.${sig.slice(0, -2)}`, at))).toBe(
    "token_invalid",
  );
  for (const bad of ["", "a", "a.b.c", `${body}.`, "..."])
    expect(codeOf(() => verifyActionToken(SECRET, bad, at))).toBe("token_invalid");
  // Signed by the right secret but not our claims' shape.
  const odd = signActionToken(SECRET, { ...claim, item: "plan-x" }, at).token;
  expect(codeOf(() => verifyActionToken(SECRET, odd, at))).toBe("token_invalid");
});
