import { expect, test } from "vitest";

import { sessionFeed, sessionLabel } from "./sessions";

test("a session is named by its title, else its project and branch, else its key", () => {
  const key = "964045e0-635a-43a1-9bd5-767007c27d67";
  expect(sessionLabel({ title: "Decode sweep", key, project: "pitwall", gitBranch: "main" })).toBe(
    "Decode sweep",
  );
  expect(sessionLabel({ title: null, key, project: "pitwall", gitBranch: "bench-sweep" })).toBe(
    "pitwall · bench-sweep",
  );
  expect(sessionLabel({ title: null, key, project: "pitwall", gitBranch: null })).toBe("pitwall");
  expect(sessionLabel({ title: null, key })).toBe(key);
});

test("a session whose agent reported its end is ended, an imported file without live state is imported, any other is live", () => {
  expect(sessionFeed({ source: "claude-code", live: { state: "ended" } })).toBe("ended");
  expect(sessionFeed({ source: "pushed", live: { state: "ended" } })).toBe("ended");
  for (const state of ["working", "waiting", "idle"] as const)
    expect(sessionFeed({ source: "claude-code", live: { state } })).toBe("live");
  expect(sessionFeed({ source: "opencode", live: null })).toBe("imported");
  expect(sessionFeed({ source: "claude-code", live: null })).toBe("imported");
  // A worker pushing todo lists without activity frames: it may push again.
  expect(sessionFeed({ source: "pushed", live: null })).toBe("live");
});
