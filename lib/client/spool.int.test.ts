import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { FrameSpool, SpoolLockedError } from "./spool";

const frame = (id: string) => ({ id, text: JSON.stringify({ v: 1, id, type: "hello" }) });
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-spool-unit-"));
const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");

describe("FrameSpool", () => {
  test("pending = written minus settled, in first-written order; reopening compacts", () => {
    const dir = tmpDir();
    const a = FrameSpool.open(dir);
    expect(a.pending).toEqual([]);
    a.append([frame("a"), frame("b")]);
    a.append([frame("c")]);
    a.settle(["b"]);
    expect(read(dir, "frames.jsonl").trim().split("\n")).toHaveLength(3);
    expect(read(dir, "acked.txt")).toBe('"b"\n');
    // Simulate a crash: the lock stays, held by a process that no longer exists.
    const dead = spawnSync(process.execPath, [
      "-e",
      "process.stdout.write(String(process.pid))",
    ]).stdout.toString();
    fs.writeFileSync(
      path.join(dir, "lock"),
      JSON.stringify({ pid: Number(dead), host: os.hostname() }),
    );

    const b = FrameSpool.open(dir);
    expect(b.pending.map((f) => f.id)).toEqual(["a", "c"]);
    expect(b.pending[0]!.text).toBe(frame("a").text);
    expect(read(dir, "frames.jsonl")).toBe(`${frame("a").text}\n${frame("c").text}\n`);
    expect(read(dir, "acked.txt")).toBe("");
    b.close([]);
    expect(read(dir, "frames.jsonl")).toBe("");
    expect(fs.existsSync(path.join(dir, "lock"))).toBe(false);
  });

  test("a compaction is due after compactAfter settled ids and rewrites the files", () => {
    const dir = tmpDir();
    const s = FrameSpool.open(dir, { compactAfter: 3 });
    s.append(["1", "2", "3", "4"].map(frame));
    expect(s.settle(["1", "2"])).toBe(false);
    expect(s.settle(["3"])).toBe(true);
    s.compact([frame("4")]);
    expect(read(dir, "frames.jsonl")).toBe(`${frame("4").text}\n`);
    expect(read(dir, "acked.txt")).toBe("");
    s.append([frame("5")]);
    expect(s.settle(["4"])).toBe(false);
    s.close([frame("5")]);
    expect(FrameSpool.open(dir).pending.map((f) => f.id)).toEqual(["5"]);
  });

  test("a cut last line, a line without id and ids with odd characters", () => {
    const dir = tmpDir();
    const odd = 'id with "quotes"\nand a newline';
    fs.writeFileSync(
      path.join(dir, "frames.jsonl"),
      `${frame(odd).text}\n{"v":1,"type":"hello"}\n${frame("x").text}\n{"v":1,"id":"cu`,
    );
    fs.writeFileSync(path.join(dir, "acked.txt"), `${JSON.stringify("x")}\n"trunc`);
    const s = FrameSpool.open(dir);
    expect(s.pending.map((f) => f.id)).toEqual([odd]);
    expect(s.skippedLines).toBe(2);
    s.settle([odd]);
    s.close([]);
    expect(FrameSpool.open(dir).pending).toEqual([]);
  });

  test("a live holder (this process) locks the folder", () => {
    const dir = tmpDir();
    const s = FrameSpool.open(dir);
    expect(() => FrameSpool.open(dir)).toThrow(SpoolLockedError);
    s.close([]);
    FrameSpool.open(dir).close([]);
  });
});
