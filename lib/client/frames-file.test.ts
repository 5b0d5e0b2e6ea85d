import { describe, expect, test } from "vitest";

import { readFramesFile } from "./frames-file";

describe("readFramesFile", () => {
  test("a JSON array; missing v and id are filled in, deterministically", () => {
    const text = '[{"type":"hello"},{"v":1,"id":"keep","type":"hello"}]';
    const a = readFramesFile(text);
    expect(a.problems).toEqual([]);
    expect(a.frames.map((f) => f.frame)).toEqual([
      { v: 1, id: expect.stringMatching(/^push-[0-9a-f]{16}-0$/), type: "hello" },
      { v: 1, id: "keep", type: "hello" },
    ]);
    expect(readFramesFile(text).frames[0]!.frame.id).toBe(a.frames[0]!.frame.id);
    expect(readFramesFile(text + " ").frames[0]!.frame.id).not.toBe(a.frames[0]!.frame.id);
  });

  test("JSON lines with bare NaN, a bad line and a non-object, with line numbers", () => {
    const text =
      '{"v":1,"id":"a","type":"run.metrics","run":"r","points":[{"key":"loss","step":1,"value":NaN}]}\n\n{oops\n42\n[{"id":"b","type":"hello"},{"id":"c","type":"hello"}]\n';
    const { frames, problems } = readFramesFile(text);
    expect(frames.map((f) => [f.frame.id, f.line])).toEqual([
      ["a", 1],
      ["b", 5],
      ["c", 5],
    ]);
    expect((frames[0]!.frame.points as Array<{ value: number }>)[0]!.value).toBeNaN();
    expect(problems).toEqual([
      { line: 3, message: expect.stringContaining("not JSON") },
      { line: 4, message: expect.stringContaining("not a JSON object") },
    ]);
  });

  test("a single object, an empty file, a broken array", () => {
    expect(readFramesFile('{\n  "id": "x",\n  "type": "hello"\n}\n').frames).toHaveLength(1);
    expect(readFramesFile("  \n")).toEqual({ frames: [], problems: [] });
    expect(readFramesFile('[{"id":"x"},').problems[0]!.message).toContain("not a JSON array");
  });
});
