import { expect, test } from "vitest";
import { sessionLabel } from "./sessions";

test("a session is named by its title, else its project and branch, else its key", () => {
  const key = "964045e0-635a-43a1-9bd5-767007c27d67";
  expect(sessionLabel({ title: "Decode sweep", key, project: "pitwall", gitBranch: "main" })).toBe("Decode sweep");
  expect(sessionLabel({ title: null, key, project: "pitwall", gitBranch: "bench-sweep" })).toBe("pitwall · bench-sweep");
  expect(sessionLabel({ title: null, key, project: "pitwall", gitBranch: null })).toBe("pitwall");
  expect(sessionLabel({ title: null, key })).toBe(key);
});
