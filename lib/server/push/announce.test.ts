import { expect, test } from "vitest";

import { verifyActionToken } from "./action-token";
import { MAX_PUSH_SUMMARY_CHARS, pushPayloadFor, type AnnouncedEntry } from "./announce";

// What a push says about an inbox entry: its text and link, buttons only where a notification
// can decide, tokens for the person it goes to, and a size push services accept.

const SECRET = "k".repeat(43);
const at = new Date("2026-12-06T10:00:00Z");
const entry: AnnouncedEntry = {
  id: "12",
  kind: "permission",
  agent: "opencode",
  host: "gpu-01",
  toolName: "bash",
  summary: "pytest -x",
  project: "pitwall",
  gitBranch: "main",
  expiresAt: new Date(at.getTime() + 600_000),
};

test("a permission: title, body, link, and Approve / Deny tokens for that person and item", () => {
  const p = pushPayloadFor(entry, "user-1", SECRET, at);
  expect(p).toMatchObject({
    id: "12",
    title: "opencode on gpu-01: permission bash",
    body: "pytest -x\nproject pitwall · branch main",
    url: "/inbox?item=12",
    tag: "inbox-12",
    renotify: false,
  });
  const claims = p.actions.map((a) => verifyActionToken(SECRET, a.token, at));
  expect(claims.map((c) => [c.i, c.a, c.u])).toEqual([
    ["12", "allow", "user-1"],
    ["12", "deny", "user-1"],
  ]);
});

test("plans link their page and reject; questions and notices get no buttons; a reminder alerts again", () => {
  const plan = pushPayloadFor({ ...entry, id: "plan-7", kind: "plan" }, "u", SECRET, at);
  expect(plan.url).toBe("/plans/7");
  expect(plan.actions.map((a) => a.title)).toEqual(["Approve", "Reject"]);
  for (const kind of ["question", "notice"])
    expect(pushPayloadFor({ ...entry, kind }, "u", SECRET, at).actions).toEqual([]);
  const reminder = pushPayloadFor(entry, "u", SECRET, at, "Still waiting after 12 min");
  expect(reminder).toMatchObject({ renotify: true, tag: "inbox-12" });
  expect(reminder.body.split("\n")[0]).toBe("Still waiting after 12 min");
});

test("a 2000-character summary (and long project, branch, tool) is clipped so the payload stays well under 4096 bytes", () => {
  const long = {
    ...entry,
    summary: "x".repeat(2000),
    project: "p".repeat(500),
    gitBranch: "b".repeat(500),
    toolName: "mcp__".repeat(40),
    host: "h".repeat(100),
  };
  const p = pushPayloadFor(
    long,
    "a-user-id-of-some-length",
    SECRET,
    at,
    "Still waiting after 99 min",
  );
  expect(p.summary).toHaveLength(MAX_PUSH_SUMMARY_CHARS);
  expect(p.summary.endsWith("…")).toBe(true);
  expect(Buffer.byteLength(JSON.stringify(p))).toBeLessThan(3600);
});
