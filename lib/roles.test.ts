import { describe, expect, test } from "vitest";

import { hasRole, isRole, safeNextPath } from "./roles";

describe("roles", () => {
  test("admin ≥ approver ≥ viewer", () => {
    expect(hasRole("admin", "approver")).toBe(true);
    expect(hasRole("approver", "approver")).toBe(true);
    expect(hasRole("viewer", "approver")).toBe(false);
    expect(hasRole("approver", "admin")).toBe(false);
    expect(isRole("approver")).toBe(true);
    expect(isRole("root")).toBe(false);
  });
});

describe("safeNextPath", () => {
  test("keeps same-site paths with their query, refuses other origins and the auth pages", () => {
    expect(safeNextPath("/runs/42?tab=points")).toBe("/runs/42?tab=points");
    expect(safeNextPath("/")).toBe("/");
    for (const bad of [
      null,
      undefined,
      "",
      "runs",
      "//evil.example",
      "/\\evil.example",
      "https://evil.example/",
      "/\u0000x",
      "/sign-in?next=/x",
      "/setup",
    ]) {
      expect(safeNextPath(bad), String(bad)).toBe("/");
    }
    expect(safeNextPath("/sign-ins-and-more")).toBe("/sign-ins-and-more");
  });
});
