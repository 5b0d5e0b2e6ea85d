import { expect, test } from "vitest";

import { startProblem } from "./lib/start-check.mjs";

// What the hook says at session start about the URL and token (the answer of postFrames injected).

const cfg = { url: "http://pitwall:8080", token: "pw_x" };
const answering = (err?: Error) => async () => {
  if (err) throw err;
  return { results: [] };
};

test("a refused token and an unreachable Pitwall are one line each; an accepted token or another refusal says nothing", async () => {
  expect(await startProblem(cfg, answering(new Error("Pitwall answered HTTP 401")))).toContain(
    "Pitwall at http://pitwall:8080 refuses this token (401)",
  );
  expect(
    await startProblem(cfg, answering(new Error("connect ECONNREFUSED 127.0.0.1:8080"))),
  ).toContain("does not answer (connect ECONNREFUSED 127.0.0.1:8080)");
  expect(await startProblem(cfg, answering())).toBeNull();
  expect(await startProblem(cfg, answering(new Error("Pitwall answered HTTP 400")))).toBeNull();
});
