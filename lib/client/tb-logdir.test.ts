import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { expectValidFrames } from "@/lib/importers/testing";
import type { ClientFrameInput } from "@/lib/protocol";

import { TbLogdirFollower } from "./tb-logdir";
import { maskedCrc32c, readTfRecords } from "./tfrecord";

// TensorBoard event files written by tensorboardX 2.6.5 and tensorboard 2.21.0's own writer
// (testdata/tensorboard/SOURCE.md):
// simple_value scalars, tensor-valued scalars of every dtype, non-scalars skipped; a record cut
// short waits; a corrupt record is reported; a restart gives the same runs and points.

const fixtureLogdir = path.resolve(import.meta.dirname, "testdata/tensorboard/logdir");

async function copyLogdir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-tb-"));
  await fs.cp(fixtureLogdir, dir, { recursive: true });
  return dir;
}

type Metrics = Extract<ClientFrameInput, { type: "run.metrics" }>;
const metricsOf = (frames: ClientFrameInput[]) =>
  frames.filter((f): f is Metrics => f.type === "run.metrics");
/** `{runKey: {metric key: [[step, value], …]}}` of the frames. */
function series(
  frames: ClientFrameInput[],
): Record<string, Record<string, [number | string, number][]>> {
  const out: Record<string, Record<string, [number | string, number][]>> = {};
  for (const f of metricsOf(frames))
    for (const p of f.points) ((out[f.run] ??= {})[p.key] ??= []).push([p.step, Number(p.value)]);
  return out;
}

describe("TFRecord framing", () => {
  test("the masked CRC-32C of TensorFlow's record writer", () => {
    // crc32c("123456789") = 0xE3069283 (the standard check value), masked as record_writer.h does.
    const crc = 0xe3069283;
    expect(maskedCrc32c(Buffer.from("123456789"))).toBe(
      ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0,
    );
  });

  test("complete records only; a bad payload CRC skips one record; a bad length CRC stops", async () => {
    const file = (await fs.readdir(path.join(fixtureLogdir, "drafter-a")))[0]!;
    const buf = await fs.readFile(path.join(fixtureLogdir, "drafter-a", file));
    const all = readTfRecords(buf);
    expect(all.records).toHaveLength(66);
    expect(all.nextOffset).toBe(buf.length);
    const cut = readTfRecords(buf.subarray(0, all.records[3]!.end + 20));
    expect(cut.records).toHaveLength(4);
    expect(cut.nextOffset).toBe(all.records[3]!.end);
    expect(cut.problems).toEqual([]);
    const bad = Buffer.from(buf);
    const flip = (at: number) => bad.writeUInt8(bad.readUInt8(at) ^ 0xff, at);
    flip(all.records[2]!.start + 13); // a payload byte of record 3
    const read = readTfRecords(bad);
    expect(read.records).toHaveLength(65);
    expect(read.problems).toEqual([
      {
        offset: all.records[2]!.start,
        message: "record payload CRC mismatch: record skipped",
        fatal: false,
      },
    ]);
    flip(all.records[5]!.start); // the length of record 6
    expect(readTfRecords(bad).problems.at(-1)).toMatchObject({
      offset: all.records[5]!.start,
      fatal: true,
    });
    expect(readTfRecords(bad).records).toHaveLength(4);
  });
});

describe("TbLogdirFollower", () => {
  test("one training run per folder; simple_value and tensor-valued scalars of every dtype; no text, histogram or vector", async () => {
    const logdir = await copyLogdir();
    const f = new TbLogdirFollower({ logdir, keySalt: "kpro5" });
    const { frames, summaries, problems } = await f.poll();
    expect(problems).toEqual([]);
    expectValidFrames(frames);
    const a = f.runKeyFor("drafter-a");
    const b = f.runKeyFor(path.join("nested", "drafter-b"));
    expect(frames.filter((fr) => fr.type === "run.start")).toEqual([
      expect.objectContaining({
        run: a,
        name: "drafter-a",
        kind: "training",
        config: { source: "tensorboard", logdir, folder: "drafter-a" },
      }),
      expect.objectContaining({ run: b, name: "nested/drafter-b", kind: "training" }),
      expect.objectContaining({
        run: f.runKeyFor("tensorboard-native"),
        name: "tensorboard-native",
        kind: "training",
      }),
    ]);
    const s = series(frames);
    expect(Object.keys(s[a]!).sort()).toEqual(["eval/tau", "train/loss"]);
    const loss = s[a]!["train/loss"]!;
    expect(loss).toHaveLength(50);
    expect(loss[0]).toEqual([0, 2]);
    expect(loss[13]![0]).toBe(13);
    expect(Number.isNaN(loss[13]![1])).toBe(true);
    expect(loss[49]![1]).toBeCloseTo(2 / 50, 6);
    expect(s[a]!["eval/tau"]!.map(([step, v]) => [step, Number(v.toFixed(4))])).toEqual(
      [9, 19, 29, 39, 49].map((st) => [st, 3 + st / 10]),
    );
    const steps = [0, 1, 2, 2 ** 40 + 5];
    for (const key of ["lr", "acc", "grad_norm", "ppl"])
      expect(s[b]![key]).toEqual(steps.map((st, i) => [st, (i + 1) * 1.5]));
    for (const key of ["tokens", "seen"])
      expect(s[b]![key]).toEqual(steps.map((st, i) => [st, (i + 1) * 100]));
    expect(s[b]!.vector).toBeUndefined();
    expect(metricsOf(frames).find((fr) => fr.run === a)!.points[0]!.ts).toBe(1_796_000_000_000);
    // TensorBoard's own writer (tensor-valued float32 scalars, metadata on each tag's first value).
    const native = s[f.runKeyFor("tensorboard-native")]!;
    expect(native["train/loss"]!.map(([st]) => st)).toEqual([...Array(10).keys()]);
    native["train/loss"]!.forEach(([st, v]) => expect(v).toBeCloseTo(1 / (Number(st) + 1), 6));
    expect(native["eval/tau"]).toEqual([0, 3, 6, 9].map((st) => [st, 4 + st / 4]));
    expect(summaries.map((x) => [x.folder, x.points])).toEqual([
      ["drafter-a", 55],
      [path.join("nested", "drafter-b"), 24],
      ["tensorboard-native", 14],
    ]);
    // Nothing new: nothing sent.
    expect((await f.poll()).frames).toEqual([]);
  });

  test("a file being written: a record cut short waits for the next poll; a restart gives the same runs and points", async () => {
    const logdir = await copyLogdir();
    const dir = path.join(logdir, "drafter-a");
    const file = path.join(dir, (await fs.readdir(dir))[0]!);
    const full = await fs.readFile(file);
    const records = readTfRecords(full).records;
    // 21 records (the file_version event, train/loss at steps 0..16, and eval/tau, the histogram
    // and the text at step 9) and 7 bytes of the next one.
    await fs.writeFile(file, full.subarray(0, records[20]!.end + 7));
    const f = new TbLogdirFollower({ logdir, keySalt: "kpro5" });
    const first = await f.poll();
    const key = f.runKeyFor("drafter-a");
    expect(series(first.frames)[key]!["train/loss"]!.map(([st]) => st)).toEqual([
      ...Array(17).keys(),
    ]);
    await fs.writeFile(file, full);
    const second = await f.poll();
    expect(second.frames.some((fr) => fr.type === "run.start")).toBe(false);
    const both = series([...first.frames, ...second.frames]);
    expect(both[key]!["train/loss"]!.map(([st]) => st)).toEqual([...Array(50).keys()]);

    const restarted = new TbLogdirFollower({ logdir, keySalt: "kpro5" });
    const again = series((await restarted.poll()).frames);
    expect(JSON.stringify(again[key])).toEqual(JSON.stringify(both[key]));
  });
});
