import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { FileTail, type TailLine } from "./file-tail";

// FileTail on a real file being appended to: complete lines once each, a cut line waits for its
// newline (also a cut inside a UTF-8 character), truncation reads again from the start.

async function tmpFile(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-tail-"));
  return path.join(dir, "out.jsonl");
}

describe("FileTail", () => {
  test("complete lines only, in order, once; a file that does not exist yet is picked up", async () => {
    const file = await tmpFile();
    const got: TailLine[] = [];
    const tail = new FileTail(file, { onLines: (l) => void got.push(...l), pollMs: 60_000 });
    await tail.start();
    expect(got).toEqual([]);
    await fs.writeFile(file, 'a\r\nb\n{"half');
    await tail.readNow();
    expect(got).toEqual([
      { line: 1, text: "a" },
      { line: 2, text: "b" },
    ]);
    const euro = Buffer.from("€ 12.4\n");
    await fs.appendFile(file, Buffer.concat([Buffer.from('": 1}\n'), euro.subarray(0, 1)]));
    await tail.readNow();
    expect(got.at(-1)).toEqual({ line: 3, text: '{"half": 1}' });
    await fs.appendFile(file, euro.subarray(1));
    await tail.readNow();
    await tail.readNow();
    expect(got.at(-1)).toEqual({ line: 4, text: "€ 12.4" });
    expect(got).toHaveLength(4);
    await fs.appendFile(file, "tail without newline");
    await tail.stop();
    expect(got).toHaveLength(4);
  });

  test("fs.watch notices appends without a poll; fromEnd skips what is there but counts it", async () => {
    const file = await tmpFile();
    await fs.writeFile(file, "old 1\nold 2\n");
    const got: TailLine[] = [];
    const tail = new FileTail(file, {
      onLines: (l) => void got.push(...l),
      fromEnd: true,
      pollMs: 60_000,
    });
    await tail.start();
    await fs.appendFile(file, "new\n");
    const deadline = Date.now() + 5000;
    while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([{ line: 3, text: "new" }]);
    await tail.stop();
  });

  test("completeWithoutNewline: vLLM --append-result's newest record (newline before, not after) is handed over once", async () => {
    const file = await tmpFile();
    const got: TailLine[] = [];
    const whole = (t: string) => t.startsWith("{") && t.endsWith("}");
    const tail = new FileTail(file, {
      onLines: (l) => void got.push(...l),
      completeWithoutNewline: whole,
      pollMs: 60_000,
    });
    await tail.start();
    await fs.writeFile(file, '{"c": 1}');
    await tail.readNow();
    await tail.readNow();
    expect(got).toEqual([{ line: 1, text: '{"c": 1}' }]);
    await fs.appendFile(file, '\n{"c": 2');
    await tail.readNow();
    expect(got).toHaveLength(1); // line 1 again? no; line 2 is not whole yet
    await fs.appendFile(file, "}");
    await tail.stop();
    expect(got).toEqual([
      { line: 1, text: '{"c": 1}' },
      { line: 2, text: '{"c": 2}' },
    ]);
  });

  test("a truncated file is read again from line 1, after onReset", async () => {
    const file = await tmpFile();
    await fs.writeFile(file, "1\n2\n3\n");
    const got: string[] = [];
    const tail = new FileTail(file, {
      onLines: (l) => void got.push(...l.map((x) => `${x.line}:${x.text}`)),
      onReset: () => got.push("reset"),
      pollMs: 60_000,
    });
    await tail.start();
    await fs.writeFile(file, "x\n");
    await tail.readNow();
    await tail.stop();
    expect(got).toEqual(["1:1", "2:2", "3:3", "reset", "1:x"]);
  });
  test("position() and resume: a new tail continues after the saved line, a handed-over unterminated line is not handed again", async () => {
    const file = await tmpFile();
    const whole = (t: string) => t.startsWith("{") && t.endsWith("}");
    const first: TailLine[] = [];
    const a = new FileTail(file, {
      onLines: (l) => void first.push(...l),
      pollMs: 60_000,
      completeWithoutNewline: whole,
    });
    await fs.writeFile(file, '{"r": 1}\n{"r": 2}');
    await a.start();
    await a.stop();
    expect(first.map((l) => l.text)).toEqual(['{"r": 1}', '{"r": 2}']);
    const pos = a.position()!;
    expect(pos).toMatchObject({ offset: 9, lines: 1, handedPartial: '{"r": 2}' });
    // vLLM style: the newline comes before the next result.
    await fs.appendFile(file, '\n{"r": 3}');
    const second: TailLine[] = [];
    const b = new FileTail(file, {
      resume: pos,
      onLines: (l) => void second.push(...l),
      pollMs: 60_000,
      completeWithoutNewline: whole,
    });
    await b.start();
    await b.stop();
    expect(second).toEqual([{ line: 3, text: '{"r": 3}' }]);
    // A position of another file (inode) is not trusted: read from the start, onReset first.
    const third: TailLine[] = [];
    let resets = 0;
    const c = new FileTail(file, {
      resume: { ...pos, ino: pos.ino + 1 },
      onLines: (l) => void third.push(...l),
      onReset: () => resets++,
      pollMs: 60_000,
    });
    await c.start();
    await c.stop();
    expect(resets).toBe(1);
    expect(third.map((l) => l.line)).toEqual([1, 2]);
  });
});
