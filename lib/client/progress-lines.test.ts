import { describe, expect, test } from "vitest";

import { LineSplitter, OutputTail } from "./output-lines";
import { parseProgressLine, parseTqdm } from "./progress-lines";

describe("PITWALL lines", () => {
  test("a full line: done, total, counters, metrics, step", () => {
    const parsed = parseProgressLine(
      'PITWALL {"done":10,"total":100,"counters":{"s3.uploaded":5},"metrics":{"loss":0.5},"step":10}',
    );
    expect(parsed).toEqual({
      kind: "pitwall",
      line: {
        done: 10,
        total: 100,
        counters: { "s3.uploaded": 5 },
        metrics: { loss: 0.5 },
        step: 10,
      },
    });
  });

  test("bare NaN/Infinity as Python writes them, and the JS string forms", () => {
    const parsed = parseProgressLine(
      'PITWALL {"metrics":{"loss":NaN,"grad":Infinity,"lr":"-Infinity"},"step":3}',
    );
    expect(parsed?.kind).toBe("pitwall");
    const metrics = (parsed as { line: { metrics: Record<string, number> } }).line.metrics;
    expect(metrics.loss).toBeNaN();
    expect(metrics.grad).toBe(Infinity);
    expect(metrics.lr).toBe(-Infinity);
  });

  test("event as a string or {level, message}; artifact", () => {
    expect(parseProgressLine('PITWALL {"event":"checkpoint saved"}')).toEqual({
      kind: "pitwall",
      line: { event: "checkpoint saved" },
    });
    expect(
      parseProgressLine('  PITWALL {"event":{"level":"warn","message":"disk 90% full"}}'),
    ).toEqual({
      kind: "pitwall",
      line: { event: { level: "warn", message: "disk 90% full" } },
    });
    expect(
      parseProgressLine(
        'PITWALL {"artifact":{"kind":"checkpoint","uri":"s3://b/ckpt-100","sizeBytes":1024,"step":100}}',
      ),
    ).toEqual({
      kind: "pitwall",
      line: {
        artifact: { kind: "checkpoint", uri: "s3://b/ckpt-100", sizeBytes: 1024, step: 100 },
      },
    });
  });

  test("bad lines are invalid with the reason; ordinary output is not a progress line", () => {
    expect(parseProgressLine("PITWALL {not json")).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("not JSON"),
    });
    expect(parseProgressLine('PITWALL {"dnoe":3}')).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("dnoe"),
    });
    expect(parseProgressLine('PITWALL {"counters":{"s3.uploaded":-1}}')).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("counters"),
    });
    expect(parseProgressLine("PITWALL is the name of our dashboard")).toBeNull();
    expect(parseProgressLine("epoch 1/3 done on 2024/12/01")).toBeNull();
    expect(parseProgressLine("")).toBeNull();
  });
});

describe("tqdm bars", () => {
  test("the default bar with a total", () => {
    expect(parseTqdm(" 45%|████▌     | 450/1000 [00:10<00:12, 45.00it/s]")).toEqual({
      done: 450,
      total: 1000,
    });
    expect(
      parseTqdm("extract: 100%|██████████| 1000/1000 [01:02:03<00:00, 45.00samples/s, loss=0.1]"),
    ).toEqual({ done: 1000, total: 1000, unit: "samples" });
    expect(parseTqdm("  0%|          | 0/914000 [00:00<?, ?it/s]")).toEqual({
      done: 0,
      total: 914000,
    });
    expect(parseTqdm(" 10%|█         | 3/30 [00:07<01:02, 2.31s/it]")).toEqual({
      done: 3,
      total: 30,
    });
  });

  test("unit_scale suffixes", () => {
    expect(parseTqdm(" 12%|█▏        | 110k/914k [00:40<04:50, 2.75ksamples/s]")).toEqual({
      done: 110_000,
      total: 914_000,
      unit: "samples",
    });
    expect(parseTqdm("  1%|          | 1.20k/914k [00:01<10:00, 1.20kit/s]")).toEqual({
      done: 1200,
      total: 914_000,
    });
  });

  test("without a total", () => {
    expect(parseTqdm("450it [00:10, 45.00it/s]")).toEqual({ done: 450 });
    expect(parseTqdm("prompts: 77prompts [00:03, 25.1prompts/s]")).toEqual({
      done: 77,
      unit: "prompts",
    });
  });

  test("not a bar", () => {
    expect(parseTqdm("loaded 450/1000 shards")).toBeNull();
    expect(parseTqdm("[00:10] step 3")).toBeNull();
  });
});

describe("LineSplitter", () => {
  test("tqdm's \\r redraws: each drawn bar is a segment, the line shows the last one", () => {
    const s = new LineSplitter();
    const a = s.push(
      "start\n\r  0%|  | 0/10 [00:00<?, ?it/s]\r 50%|█ | 5/10 [00:01<00:01, 5.00it/s]",
    );
    expect(a.lines).toEqual(["start"]);
    expect(a.segments).toEqual(["start", "  0%|  | 0/10 [00:00<?, ?it/s]"]);
    expect(s.pending()).toBe(" 50%|█ | 5/10 [00:01<00:01, 5.00it/s]");
    const b = s.push("\r100%|██| 10/10 [00:02<00:00, 5.00it/s]\n");
    expect(b.segments).toEqual([
      " 50%|█ | 5/10 [00:01<00:01, 5.00it/s]",
      "100%|██| 10/10 [00:02<00:00, 5.00it/s]",
    ]);
    expect(b.lines).toEqual(["100%|██| 10/10 [00:02<00:00, 5.00it/s]"]);
  });

  test("lines split across chunks, CRLF, and an unterminated last line at the end", () => {
    const s = new LineSplitter();
    expect(s.push("hel").lines).toEqual([]);
    expect(s.push("lo\r\nwor").lines).toEqual(["hello"]);
    expect(s.push("ld").lines).toEqual([]);
    expect(s.end()).toEqual({ segments: ["world"], lines: ["world"] });
    expect(s.end()).toEqual({ segments: [], lines: [] });
  });
});

describe("OutputTail", () => {
  test("keeps the last lines within the line and character limits", () => {
    const tail = new OutputTail(3, 20);
    tail.add(["one", "two", "three", "four"]);
    expect(tail.snapshot()).toEqual(["two", "three", "four"]);
    tail.add(["x".repeat(15)]);
    expect(tail.snapshot()).toEqual(["x".repeat(15)]);
    const long = new OutputTail();
    long.add(["y".repeat(5000)]);
    expect(long.snapshot()[0]!.length).toBe(4000);
  });
});
