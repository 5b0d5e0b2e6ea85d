import { expect, test } from "vitest";

import { gateIsStale, stopGate } from "./lib/plan-gate-guard.mjs";

// The plan gate is freed only by events that prove the plan dialog was answered elsewhere.

const waiting = { gatePid: 4242, lastPlan: { key: "cc:s:plan:1", decision: null } };

test("events after the answer free an undecided gate; the dialog's own events, Notification and decided plans do not", () => {
  for (const name of ["UserPromptSubmit", "Stop", "SessionEnd", "PostToolUse"])
    expect(gateIsStale(waiting, { hook_event_name: name })).toBe(true);
  for (const name of ["Notification", "PermissionRequest", "SessionStart"])
    expect(gateIsStale(waiting, { hook_event_name: name })).toBe(false);
  expect(
    gateIsStale(
      { ...waiting, lastPlan: { key: "cc:s:plan:1", decision: "approved" } },
      { hook_event_name: "PostToolUse" },
    ),
  ).toBe(false);
  expect(gateIsStale({ lastPlan: waiting.lastPlan }, { hook_event_name: "Stop" })).toBe(false);
  expect(gateIsStale(null, { hook_event_name: "Stop" })).toBe(false);
});

test("a pid that is not our hook (here: this test runner) is never signalled", () => {
  expect(stopGate(process.pid)).toBe(false);
  expect(stopGate(2 ** 22 + 17)).toBe(false);
});
