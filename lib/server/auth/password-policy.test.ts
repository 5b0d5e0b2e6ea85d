import { describe, expect, it } from "vitest";

import { MIN_PASSWORD_LENGTH, passwordProblem } from "./password-policy";

describe("passwordProblem", () => {
  it("refuses what the probe got through: 'password', '12345678', eight spaces", () => {
    for (const weak of ["password", "12345678", "        "])
      expect(passwordProblem(weak), weak).toMatch(/at least 12/);
  });

  it("refuses long ones that are common, blank or one character repeated", () => {
    expect(passwordProblem("password1234")).toMatch(/most common/);
    expect(passwordProblem("123456789012")).toMatch(/most common/);
    expect(passwordProblem("PASSWORD1234")).toMatch(/most common/);
    expect(passwordProblem(" ".repeat(MIN_PASSWORD_LENGTH))).toMatch(/spaces/);
    expect(passwordProblem("a".repeat(20))).toMatch(/repeated/);
    expect(passwordProblem("x".repeat(257))).toMatch(/at most 256/);
  });

  it("accepts a passphrase and a generated password", () => {
    expect(passwordProblem("correct horse")).toBeNull();
    expect(passwordProblem("e2e-admin-password")).toBeNull();
    expect(passwordProblem("Qm3_x9Lr-T2vKp0w")).toBeNull();
  });
});
