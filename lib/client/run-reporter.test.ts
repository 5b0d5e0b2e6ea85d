import { describe, expect, test } from "vitest";

import { checkFrame } from "@/lib/protocol";

import type { Clock } from "./clock";
import { RunReporter } from "./run-reporter";
import type { OutgoingFrame } from "./socket";

/** A clock that moves only when the test says so. */
function manualClock(start = 1_764_400_000_000): Clock & { advance(ms: number): void } {
  let t = start;
  return { now: () => t, sleep: async () => undefined, advance: (ms) => (t += ms) };
}

function recorder() {
  const frames: Array<Record<string, unknown>> = [];
  let n = 0;
  return {
    frames,
    send(frame: OutgoingFrame) {
      const full = { v: 1, id: `f${++n}`, ...frame } as Record<string, unknown>;
      // Every frame the reporter builds must be valid protocol.
      const check = checkFrame(full);
      if (!check.ok) throw new Error(`invalid frame ${JSON.stringify(full)}: ${check.message}`);
      frames.push(full);
      return String(full.id);
    },
    of(type: string) {
      return frames.filter((f) => f.type === type);
    },
  };
}

describe("RunReporter", () => {
  test("progress is sent at most once per interval, always the latest state", () => {
    const clock = manualClock();
    const sender = recorder();
    const r = new RunReporter({
      sender,
      run: "r1",
      bootId: "b1",
      clock,
      total: 1000,
      unit: "samples",
    });
    r.start({ name: "extract", kind: "extraction" });
    expect(sender.of("run.start")[0]).toMatchObject({
      run: "r1",
      kind: "extraction",
      total: 1000,
      unit: "samples",
    });

    r.write("stdout", 'PITWALL {"done":1}\n');
    r.tick();
    r.write("stdout", 'PITWALL {"done":2}\nPITWALL {"done":3,"counters":{"s3.uploaded":2}}\n');
    clock.advance(400);
    r.tick(); // too soon
    expect(sender.of("run.progress").map((f) => f.done)).toEqual([1]);
    clock.advance(600);
    r.tick();
    r.tick(); // nothing new
    expect(sender.of("run.progress")).toMatchObject([
      { done: 1, total: 1000, unit: "samples", bootId: "b1", workerId: "main" },
      { done: 3, counters: { "s3.uploaded": 2 } },
    ]);
  });

  test("tqdm on stderr with \\r, the bar still being drawn is read too; --total is not overridden", () => {
    const clock = manualClock();
    const sender = recorder();
    const r = new RunReporter({ sender, run: "r2", bootId: "b", clock, total: 914000 });
    r.write("stderr", "\r  0%|          | 0/1000 [00:00<?, ?it/s]");
    r.write("stderr", "\r 45%|████▌     | 450/1000 [00:10<00:12, 45.00it/s]");
    expect(r.state()).toMatchObject({ done: 450, total: 914000 });
    const r2 = new RunReporter({ sender, run: "r2b", bootId: "b", clock });
    r2.write("stderr", Buffer.from("\r 45%|████▌     | 450/1000 [00:10<00:12, 45.00samples/s]"));
    expect(r2.state()).toMatchObject({ done: 450, total: 1000, unit: "samples" });
  });

  test("after a PITWALL line reports done, tqdm bars no longer move it", () => {
    const sender = recorder();
    const r = new RunReporter({ sender, run: "r3", bootId: "b", clock: manualClock() });
    r.write("stderr", "\r 10%|█ | 10/100 [00:01<00:09, 10.00it/s]\n");
    expect(r.state().done).toBe(10);
    r.write("stdout", 'PITWALL {"done":7000,"total":914000}\n');
    r.write("stderr", "\r 20%|██ | 20/100 [00:02<00:08, 10.00it/s]\n");
    expect(r.state()).toMatchObject({ done: 7000, total: 914000 });
  });

  test("metrics are batched, never dropped; step defaults to done; events and artifacts go at once", () => {
    const clock = manualClock();
    const sender = recorder();
    const r = new RunReporter({ sender, run: "r4", bootId: "b", clock });
    r.write(
      "stdout",
      'PITWALL {"metrics":{"loss":2.5},"step":1}\nPITWALL {"metrics":{"loss":NaN},"step":2}\n',
    );
    r.write(
      "stdout",
      'PITWALL {"done":30,"metrics":{"acc":0.5}}\nPITWALL {"event":"eval done","artifact":{"kind":"checkpoint","uri":"s3://b/c30"}}\n',
    );
    expect(sender.of("run.event")).toMatchObject([{ level: "info", message: "eval done" }]);
    expect(sender.of("run.artifact")).toMatchObject([{ kind: "checkpoint", uri: "s3://b/c30" }]);
    expect(sender.of("run.metrics")).toHaveLength(0);
    r.tick();
    const metrics = sender.of("run.metrics");
    expect(metrics).toHaveLength(1);
    const points = metrics[0]!.points as Array<{ key: string; step: number; value: number }>;
    expect(points.map((p) => [p.key, p.step])).toEqual([
      ["loss", 1],
      ["loss", 2],
      ["acc", 30],
    ]);
    expect(points[1]!.value).toBeNaN();
  });

  test("live output: new lines as run.output at most once per interval, the newest 200 only; off with liveOutput false", () => {
    const clock = manualClock();
    const sender = recorder();
    const r = new RunReporter({ sender, run: "r8", bootId: "b", clock });
    r.write("stdout", "loading shard 1\nloading sh");
    r.tick();
    expect(sender.of("run.output").map((f) => f.lines)).toEqual([["loading shard 1"]]);
    r.write("stderr", "WARN retry\n");
    r.write("stdout", "ard 2\n");
    clock.advance(500);
    r.tick(); // too soon: held
    expect(sender.of("run.output")).toHaveLength(1);
    clock.advance(500);
    r.tick();
    expect(sender.of("run.output").map((f) => f.lines)).toEqual([
      ["loading shard 1"],
      ["WARN retry", "loading shard 2"],
    ]);
    clock.advance(1000);
    r.tick(); // nothing new: nothing sent
    expect(sender.of("run.output")).toHaveLength(2);
    r.write("stdout", Array.from({ length: 450 }, (_, i) => `line ${i}`).join("\n") + "\n");
    clock.advance(1000);
    r.tick();
    const last = sender.of("run.output").at(-1)!.lines as string[];
    expect(last).toHaveLength(200);
    expect(last[0]).toBe("line 250");
    expect(last.at(-1)).toBe("line 449");

    const quiet = recorder();
    const q = new RunReporter({ sender: quiet, run: "r9", bootId: "b", clock, liveOutput: false });
    q.write("stdout", "secret output\n");
    clock.advance(5000);
    q.tick();
    q.finish({ code: 0, signal: null, cancelled: false });
    expect(quiet.of("run.output")).toEqual([]);
    expect(quiet.frames.at(-1)).toMatchObject({ type: "run.end", outputTail: ["secret output"] });
  });

  test("finish: final progress, run.end with status, exit code and the output tail", () => {
    const clock = manualClock();
    const sender = recorder();
    const r = new RunReporter({ sender, run: "r5", bootId: "b", clock });
    r.write("stdout", "line one\nline two\n");
    r.write(
      "stderr",
      "\r 50%|█ | 5/10 [00:01<00:01, 5.00it/s]\r100%|██| 10/10 [00:02<00:00, 5.00it/s]",
    );
    r.finish({ code: 3, signal: null, cancelled: false });
    expect(sender.of("run.progress").at(-1)).toMatchObject({ done: 10, total: 10 });
    expect(sender.frames.at(-1)).toMatchObject({
      type: "run.end",
      status: "failed",
      exitCode: 3,
      error: "exited with code 3",
      outputTail: ["line one", "line two", "100%|██| 10/10 [00:02<00:00, 5.00it/s]"],
    });

    const ok = recorder();
    new RunReporter({ sender: ok, run: "r6", bootId: "b", clock }).finish({
      code: 0,
      signal: null,
      cancelled: false,
    });
    expect(ok.frames.at(-1)).toMatchObject({ status: "succeeded", exitCode: 0 });
    const cancelled = recorder();
    new RunReporter({ sender: cancelled, run: "r7", bootId: "b", clock }).finish({
      code: null,
      signal: "SIGTERM",
      cancelled: true,
    });
    expect(cancelled.frames.at(-1)).toMatchObject({
      status: "cancelled",
      exitCode: 143,
      error: "killed by SIGTERM",
    });
  });

  test("invalid PITWALL lines are reported, not sent", () => {
    const warnings: string[] = [];
    const sender = recorder();
    const r = new RunReporter({
      sender,
      run: "r8",
      bootId: "b",
      clock: manualClock(),
      onWarning: (m) => warnings.push(m),
    });
    r.write("stdout", 'PITWALL {"done": -1}\n');
    r.tick();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("done");
    // Only the line itself, as output (it is what the terminal shows); no progress frame.
    expect(sender.frames.filter((f) => f.type !== "run.output")).toHaveLength(0);
    expect(sender.of("run.output").map((f) => f.lines)).toEqual([['PITWALL {"done": -1}']]);
  });
});
