import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { BenchFollower } from "@/lib/client/bench-follow";
import { FileTail, type TailLine } from "@/lib/client/file-tail";
import { fixture } from "@/lib/importers/testing";

import {
  defaultBenchStatePath,
  loadBenchState,
  saveBenchState,
  type BenchState,
} from "./bench-state";

// The state file of `pitwall watch bench`, with real SGLang sweep lines (test/fixtures).

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-bench-state-unit-"));
const deepseek = fixture("sglang-bench-serving", "datacrunch_2024-12_deepseek_dp_mla_output.jsonl")
  .text.split("\n")
  .filter(Boolean);
const llama = fixture(
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
)
  .text.split("\n")
  .filter(Boolean);

/** Reads `file` once with a FileTail (optionally resumed) into a follower; returns both and the frames. */
async function readOnce(file: string, resume?: BenchState) {
  const follower = new BenchFollower({ file, keySalt: "host" });
  if (resume) follower.restore(resume.follower);
  const got: TailLine[] = [];
  let frames: unknown[] = [];
  const tail = new FileTail(file, {
    resume: resume?.tail,
    onLines: (lines) => {
      got.push(...lines);
      frames = frames.concat(follower.add(lines).frames);
    },
  });
  await tail.start();
  await tail.stop();
  return { follower, tail, lines: got, frames };
}

describe("the watch bench state file", () => {
  it("round-trips position and follower state; a resumed read gives the frames an unbroken one gives", async () => {
    const file = path.join(dir, "sweep.jsonl");
    fs.writeFileSync(file, `${deepseek[0]}\n${llama[0]}\n${llama[1]!.slice(0, 40)}`);
    const first = await readOnce(file);
    expect(first.lines.map((l) => l.line)).toEqual([1, 2]);
    const state: BenchState = { tail: first.tail.position()!, follower: first.follower.snapshot() };
    const stateFile = path.join(dir, "deep", "state.json");
    saveBenchState(stateFile, file, state);
    const loaded = loadBenchState(stateFile, file, () => undefined);
    expect(loaded).toEqual(state);

    fs.appendFileSync(file, `${llama[1]!.slice(40)}\n${llama[2]}\n`);
    const resumed = await readOnce(file, loaded!);
    expect(resumed.lines.map((l) => l.line)).toEqual([3, 4]);
    const unbroken = await readOnce(file);
    // Same run key, and the same frames (ids included) for lines 3 and 4 as a watcher that never stopped.
    expect(resumed.follower.runKey).toBe(unbroken.follower.runKey);
    const lastTwo = unbroken.frames
      .filter((f) => (f as { type: string }).type !== "run.start")
      .slice(-2);
    expect(resumed.frames.filter((f) => (f as { type: string }).type !== "run.start")).toEqual(
      lastTwo,
    );
    expect(resumed.follower.end()).toEqual(unbroken.follower.end());
  });

  it("ignores, with a warning, a state of another file, a replaced or truncated file, a broken state", () => {
    const file = path.join(dir, "s2.jsonl");
    fs.writeFileSync(file, `${llama[0]}\n${llama[1]}\n`);
    const state: BenchState = {
      tail: {
        ino: fs.statSync(file).ino,
        offset: fs.statSync(file).size,
        lines: 2,
        handedPartial: null,
      },
      follower: new BenchFollower({ file }).snapshot(),
    };
    const stateFile = path.join(dir, "s2.json");
    // Non-finite numbers in facts are kept (as Python's bare tokens in the file).
    state.follower.facts = [{ requestRate: Infinity, p99: NaN, low: -Infinity }];
    saveBenchState(stateFile, file, state);
    expect(fs.readFileSync(stateFile, "utf8")).toContain('"requestRate":Infinity,"p99":NaN');
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(loadBenchState(stateFile, file, warn)).toEqual(state);
    expect(loadBenchState(stateFile, path.join(dir, "other.jsonl"), warn)).toBeNull();
    fs.writeFileSync(file, `${llama[0]}\n`); // truncated (same inode, shorter)
    expect(loadBenchState(stateFile, file, warn)).toBeNull();
    fs.rmSync(file);
    fs.writeFileSync(file, `${llama[0]}\n${llama[1]}\n${llama[2]}\n`); // a new file at that path
    if (fs.statSync(file).ino !== state.tail.ino)
      expect(loadBenchState(stateFile, file, warn)).toBeNull();
    fs.writeFileSync(stateFile, "{not json");
    expect(loadBenchState(stateFile, file, warn)).toBeNull();
    expect(loadBenchState(path.join(dir, "none.json"), file, warn)).toBeNull();
    expect(warnings.length).toBeGreaterThanOrEqual(3);
    expect(warnings.join("\n")).toMatch(/replaced or truncated/);
  });

  it("keeps one default file per followed file under XDG_STATE_HOME", () => {
    const a = defaultBenchStatePath("/runs/a.jsonl", { XDG_STATE_HOME: "/state" });
    expect(a).toMatch(/^\/state\/pitwall\/bench\/[0-9a-f]{24}\.json$/);
    expect(defaultBenchStatePath("/runs/b.jsonl", { XDG_STATE_HOME: "/state" })).not.toBe(a);
  });
});
