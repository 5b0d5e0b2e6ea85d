import path from "node:path";
import { describe, expect, test } from "vitest";

import { expectValidFrames } from "@/lib/importers/testing";
import type { ClientFrameInput } from "@/lib/protocol";
import { fixturesDir } from "@/test/support/fixtures";

import { TbLogdirFollower } from "./tb-logdir";

// Real event files from a public repository (test/fixtures/tensorboard-public/SOURCE.txt:
// janosh/tensorboard-reducer, written by torch.utils.tensorboard), read as `pitwall watch
// tensorboard` reads a log directory. Expected values were read from the same files with
// tensorboard 2.21.0's RawEventFileLoader.

const logdir = path.join(fixturesDir, "tensorboard-public");

type Metrics = Extract<ClientFrameInput, { type: "run.metrics" }>;

/** `{folder: {key: [[step, value], …]}}` in the order the frames carry them. */
function seriesByFolder(
  f: TbLogdirFollower,
  frames: ClientFrameInput[],
  folders: string[],
): Record<string, Record<string, [number, number][]>> {
  const byKey = new Map(folders.map((d) => [f.runKeyFor(d), d]));
  const out: Record<string, Record<string, [number, number][]>> = {};
  for (const fr of frames.filter((x): x is Metrics => x.type === "run.metrics")) {
    const folder = byKey.get(fr.run);
    expect(folder, `run ${fr.run}`).toBeDefined();
    for (const p of fr.points)
      ((out[folder!] ??= {})[p.key] ??= []).push([Number(p.step), Number(p.value)]);
  }
  return out;
}

const range = (from: number, to: number, by = 1) =>
  Array.from({ length: Math.floor((to - from) / by) + 1 }, (_, i) => from + i * by);

describe("TensorBoard event files from a public repository (tensorboard-reducer)", () => {
  test("every folder is one run; tags, steps and values as TensorBoard reads them", async () => {
    const f = new TbLogdirFollower({ logdir, keySalt: "gpu-host" });
    const { frames, summaries, problems } = await f.poll();
    expect(problems).toEqual([]);
    expectValidFrames(frames);
    const strict = "tensorboard-reducer/strict/run_1";
    const lax = "tensorboard-reducer/lax/run_2";
    const dup = "tensorboard-reducer/duplicate_steps/run_1";
    const starts = frames.filter((x) => x.type === "run.start");
    expect(starts.map((s) => (s as { name: string }).name).sort()).toEqual(
      [dup, lax, strict].sort(),
    );
    expect(starts.every((s) => (s as { kind: string }).kind === "training")).toBe(true);
    expect(Object.fromEntries(summaries.map((s) => [s.folder, [s.points, s.lastStep]]))).toEqual({
      [strict]: [100, 495],
      [lax]: [360, 119],
      [dup]: [420, 199],
    });

    const s = seriesByFolder(f, frames, [strict, lax, dup]);
    expect(Object.keys(s[strict]!)).toEqual(["strict/foo"]);
    expect(s[strict]!["strict/foo"]!.map(([st]) => st)).toEqual(range(0, 495, 5));
    expect(s[strict]!["strict/foo"]![0]).toEqual([0, 1.4962565898895264]);
    expect(s[strict]!["strict/foo"]![1]).toEqual([5, 1.7682218551635742]);
    expect(s[strict]!["strict/foo"]!.at(-1)).toEqual([495, 1.212090253829956]);

    expect(Object.keys(s[lax]!).sort()).toEqual(["lax/bar_2", "lax/bar_3", "lax/foo"]);
    for (const key of Object.keys(s[lax]!))
      expect(s[lax]![key]!.map(([st]) => st)).toEqual(range(0, 119));
    expect(s[lax]!["lax/foo"]![0]).toEqual([0, 2.8140063285827637]);
    expect(s[lax]!["lax/bar_2"]![0]).toEqual([0, 2.6299002170562744]);
    expect(s[lax]!["lax/bar_3"]!.at(-1)).toEqual([119, 2.7924323081970215]);

    // Steps 90..99 were written twice: both values are sent, in file order, so the later one is
    // what the server keeps (a re-sent (key, step) replaces the stored value).
    const foo = s[dup]!["dup_steps/foo"]!;
    expect(foo).toHaveLength(210);
    expect(new Set(foo.map(([st]) => st)).size).toBe(200);
    const at90 = foo.filter(([st]) => st === 90).map(([, v]) => v);
    expect(at90).toEqual([1.5536525249481201, 1.5210340023040771]);
    const last = new Map(foo);
    expect(last.get(95)).toBe(1.4962780475616455);
    expect(last.get(150)).toBe(1.5417656898498535);
    expect(last.get(199)).toBe(1.5478503704071045);
    expect(s[dup]!["dup_steps/bar"]![0]).toEqual([0, 1.7682218551635742]);

    // Nothing new on the next poll, and a restarted follower finds the same runs and points.
    expect((await f.poll()).frames).toEqual([]);
    const again = new TbLogdirFollower({ logdir, keySalt: "gpu-host" });
    expect(seriesByFolder(again, (await again.poll()).frames, [strict, lax, dup])).toEqual(s);
  });
});
