import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";

import { interruptIn, watchTranscript } from "./lib/interrupt-watch.mjs";

// An Esc-interrupt runs no Claude Code hook; the heartbeat recognises it from the transcript.
// Entry shapes as Claude Code 2.1.332 wrote them in an interactive session interrupted during a
// Bash call (2026-12-06), trimmed to the fields read.

const at = (iso: string) => Date.parse(iso);
const prompt = {
  type: "user",
  timestamp: "2026-12-05T23:38:26.441Z",
  message: { role: "user", content: "go" },
};
const toolUse = {
  type: "assistant",
  timestamp: "2026-12-05T23:38:27.134Z",
  message: {
    role: "assistant",
    content: [
      { type: "tool_use", id: "toolu_Bash_1", name: "Bash", input: { command: "sleep 60" } },
    ],
  },
};
const rejected = {
  type: "user",
  timestamp: "2026-12-05T23:38:33.803Z",
  message: {
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "toolu_Bash_1",
        content: "The user doesn't want to proceed with this tool use.",
        is_error: true,
      },
    ],
  },
};
const interrupted = {
  type: "user",
  timestamp: "2026-12-05T23:38:33.807Z",
  message: {
    role: "user",
    content: [{ type: "text", text: "[Request interrupted by user for tool use]" }],
  },
};
const streamInterrupt = {
  type: "user",
  timestamp: "2026-12-05T23:40:00.000Z",
  message: { role: "user", content: [{ type: "text", text: "[Request interrupted by user]" }] },
};
const cost = { type: "cost-state", sessionId: "s" };
const lines = (...entries: object[]) => entries.map((e) => `${JSON.stringify(e)}\n`).join("");

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

test("an interrupt is found at its own time, also when bookkeeping lines follow; a later prompt or model reply clears it", () => {
  expect(interruptIn(lines(prompt, toolUse, rejected, interrupted, cost))).toBe(
    at("2026-12-05T23:38:33.807Z"),
  );
  expect(interruptIn(lines(streamInterrupt))).toBe(at("2026-12-05T23:40:00.000Z"));
  expect(
    interruptIn(
      lines(prompt, toolUse, rejected, interrupted, {
        ...prompt,
        timestamp: "2026-12-05T23:39:00.000Z",
      }),
    ),
  ).toBeNull();
  expect(interruptIn(lines(interrupted, toolUse))).toBeNull();
  // A refused tool result alone is no interrupt; broken lines are skipped.
  expect(interruptIn(lines(prompt, toolUse, rejected))).toBeNull();
  expect(interruptIn(`not json\n${lines(interrupted)}`)).toBe(at("2026-12-05T23:38:33.807Z"));
});

test("the watcher reads only what was appended since it started, whole lines only, each interrupt once", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-transcript-"));
  dirs.push(dir);
  const file = path.join(dir, "t.jsonl");
  // An interrupt from before the heartbeat started (a resumed session) is not reported.
  fs.writeFileSync(file, lines(prompt, interrupted));
  const watch = watchTranscript(fs, file);
  expect(watch.check()).toBeNull();
  fs.appendFileSync(file, lines(prompt, toolUse));
  expect(watch.check()).toBeNull();
  // Half a line: nothing until it is whole.
  const text = lines(rejected, interrupted);
  fs.appendFileSync(file, text.slice(0, text.length - 10));
  expect(watch.check()).toBeNull();
  fs.appendFileSync(file, text.slice(text.length - 10));
  expect(watch.check()).toBe(at("2026-12-05T23:38:33.807Z"));
  expect(watch.check()).toBeNull();
  // A missing file is no error.
  expect(watchTranscript(fs, path.join(dir, "missing.jsonl")).check()).toBeNull();
});
