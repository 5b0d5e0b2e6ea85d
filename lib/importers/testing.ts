import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

import { fixturesDir } from "../../test/support/fixtures";
import type { BenchmarkPointInput, ClientFrameInput } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import { checkFrame } from "../protocol/validate";
import type { ImportedRun } from "./index";
import { utf8ByteLength } from "./source-text";

/** Test helpers for the importer tests (imported only by `*.test.ts`). */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The committed fixtures folder, `test/fixtures/` (see test/support/fixtures.ts). */
export { fixturesDir };

/** Result files (not SCHEMA.md / SOURCE.txt) of one fixture folder, sorted by name. */
export function fixtureFiles(folder: string): { path: string; text: string }[] {
  const dir = path.join(fixturesDir, folder);
  return fs
    .readdirSync(dir)
    .filter((f) => /\.(jsonl?|ndjson)$/i.test(f))
    .sort()
    .map((f) => ({ path: path.join(dir, f), text: fs.readFileSync(path.join(dir, f), "utf8") }));
}

/** One fixture file by folder and name. */
export function fixture(folder: string, name: string): { path: string; text: string } {
  const p = path.join(fixturesDir, folder, name);
  return { path: p, text: fs.readFileSync(p, "utf8") };
}

/** The repo's own importer test files (files written in a tool's format where no real one was found). */
export const testdataDir = path.resolve(repoRoot, "lib/importers/testdata");

/** One file of `lib/importers/testdata/` by its path there (`genai-perf-no-streaming/profile_export_genai_perf.json`). */
export function testdata(relativePath: string): { path: string; text: string } {
  const p = path.join(testdataDir, relativePath);
  return { path: p, text: fs.readFileSync(p, "utf8") };
}

/** Asserts every frame passes the protocol validator and stays under the 1 MiB frame limit. */
export function expectValidFrames(frames: readonly ClientFrameInput[]): void {
  for (const frame of frames) {
    const check = checkFrame(frame);
    expect(check.ok ? "ok" : `${check.code}: ${check.message}`).toBe("ok");
    expect(utf8ByteLength(stringifyJson(frame))).toBeLessThanOrEqual(1024 * 1024);
  }
}

/** All points of a run's `run.benchmark` frames, in frame order. */
export function pointsOf(run: ImportedRun): BenchmarkPointInput[] {
  return run.frames.flatMap((f) => (f.type === "run.benchmark" ? f.points : []));
}

/** The run's `run.start` frame. */
export function startOf(run: ImportedRun): Extract<ClientFrameInput, { type: "run.start" }> {
  const f = run.frames[0];
  if (!f || f.type !== "run.start") throw new Error("first frame is not run.start");
  return f;
}

/** The run's `run.end` frame. */
export function endOf(run: ImportedRun): Extract<ClientFrameInput, { type: "run.end" }> {
  const f = run.frames[run.frames.length - 1];
  if (!f || f.type !== "run.end") throw new Error("last frame is not run.end");
  return f;
}

/** The only run of an import result. */
export function onlyRun(result: { runs: ImportedRun[] }): ImportedRun {
  expect(result.runs).toHaveLength(1);
  return result.runs[0] as ImportedRun;
}

/** The point at `index`, failing the test when absent. */
export function at(points: readonly BenchmarkPointInput[], index: number): BenchmarkPointInput {
  const p = points[index];
  if (!p) throw new Error(`no point at index ${index} (have ${points.length})`);
  return p;
}

/** Serialises a Python-style JSON value the way `json.dumps` writes it (bare NaN/Infinity). */
export function pyJson(value: unknown): string {
  return stringifyJson(value)
    .replace(/"(-?Infinity|NaN)"/g, "$1")
    .replace(/,"/g, ', "')
    .replace(/":/g, '": ');
}
