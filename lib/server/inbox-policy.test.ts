import { expect, test } from "vitest";

import { parseEnv } from "./env";
import { effectiveExpiresInS, inboxPolicyOf } from "./inbox-policy";

test("inbox timeouts, expiry actions and escalation parse per kind or for every kind", () => {
  const policy = inboxPolicyOf(
    parseEnv({
      PITWALL_INBOX_TIMEOUT_S: "permission=300, question=1800",
      PITWALL_INBOX_ON_EXPIRY: "deny",
      PITWALL_INBOX_ESCALATE_AFTER_MIN: "10",
    }),
  );
  expect(policy).toEqual({
    timeoutS: { permission: 300, question: 1800 },
    onExpiry: { permission: "deny", question: "deny", notice: "deny" },
    escalateAfterMin: { permission: 10, question: 10, notice: 10 },
  });
  expect(inboxPolicyOf(parseEnv({}))).toEqual({ timeoutS: {}, onExpiry: {}, escalateAfterMin: {} });
  // The agent's own shorter wait still wins; an unlimited kind keeps the agent's.
  expect(effectiveExpiresInS(policy, "permission", 600)).toBe(300);
  expect(effectiveExpiresInS(policy, "permission", 60)).toBe(60);
  expect(effectiveExpiresInS(policy, "notice", 600)).toBe(600);
});

test("an expired item is never approved: approve/allow are refused at start, as are unknown kinds and bad numbers", () => {
  expect(() => parseEnv({ PITWALL_INBOX_ON_EXPIRY: "permission=allow" })).toThrow(/never approved/);
  expect(() => parseEnv({ PITWALL_INBOX_ON_EXPIRY: "approve" })).toThrow(/PITWALL_INBOX_ON_EXPIRY/);
  expect(() => parseEnv({ PITWALL_INBOX_TIMEOUT_S: "plan=60" })).toThrow(/unknown kind "plan"/);
  expect(() => parseEnv({ PITWALL_INBOX_TIMEOUT_S: "permission=1" })).toThrow(
    /PITWALL_INBOX_TIMEOUT_S/,
  );
  expect(() => parseEnv({ PITWALL_INBOX_ESCALATE_AFTER_MIN: "soon" })).toThrow(
    /PITWALL_INBOX_ESCALATE_AFTER_MIN/,
  );
});
