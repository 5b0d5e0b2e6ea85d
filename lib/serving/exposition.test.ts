import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

import { fixturePath } from "@/test/support/fixtures";

import { parseExposition, parseExpositionFloat } from "./exposition";

const FIXTURE = fixturePath("prometheus-metrics", "sglang_metrics_docs_excerpt.prom");

describe("parseExposition", () => {
  it("reads the recorded SGLang exposition: types, counters in exponent notation, histogram buckets with +Inf", () => {
    const exp = parseExposition(readFileSync(FIXTURE, "utf8"));
    expect(exp.errors).toEqual([]);
    expect(exp.types.get("sglang:time_to_first_token_seconds")).toBe("histogram");
    expect(exp.types.get("sglang:prompt_tokens_total")).toBe("counter");
    const prompt = exp.samples.find((s) => s.name === "sglang:prompt_tokens_total")!;
    expect(prompt.value).toBe(8_128_902);
    expect(prompt.labels).toEqual({ model_name: "meta-llama/Llama-3.1-8B-Instruct" });
    const buckets = exp.samples.filter(
      (s) => s.name === "sglang:time_to_first_token_seconds_bucket",
    );
    expect(buckets).toHaveLength(21);
    expect(buckets.at(-1)!.labels.le).toBe("+Inf");
    expect(buckets.at(-1)!.value).toBe(11008);
    expect(
      exp.samples.find((s) => s.name === "sglang:time_to_first_token_seconds_sum")!.value,
    ).toBeCloseTo(2351897.9474117756, 6);
    expect(exp.samples.find((s) => s.name === "sglang:num_queue_reqs")!.value).toBe(2826);
  });

  it("keeps NaN and ±Inf values, escaped label values and timestamps", () => {
    const exp = parseExposition(
      [
        "# TYPE x gauge",
        'x{a="1"} NaN',
        'x{a="2"} +Inf',
        'x{a="3",b="q\\"z\\\\w\\nv",} -Inf 1700000000000',
        "plain 4.5e-3",
      ].join("\n"),
    );
    expect(exp.errors).toEqual([]);
    expect(exp.samples.map((s) => s.value)).toEqual([NaN, Infinity, -Infinity, 0.0045]);
    expect(exp.samples[2]!.labels).toEqual({ a: "3", b: 'q"z\\w\nv' });
    expect(exp.samples[2]!.timestampMs).toBe(1_700_000_000_000);
    expect(exp.samples[3]!.labels).toEqual({});
  });

  it("skips a malformed line and keeps every valid line around it", () => {
    const exp = parseExposition('a{x="1"} 1\nb{x="1" 2\nc three\nd 4\n');
    expect(exp.samples.map((s) => s.name)).toEqual(["a", "d"]);
    expect(exp.errors.map((e) => e.line)).toEqual([2, 3]);
    expect(exp.errors[1]!.message).toContain("not a number");
  });

  it("parses the float spellings of Go and Python and refuses others", () => {
    expect(parseExpositionFloat("1.5e+06")).toBe(1_500_000);
    expect(parseExpositionFloat("Inf")).toBe(Infinity);
    expect(parseExpositionFloat("-0.25")).toBe(-0.25);
    expect(parseExpositionFloat("0x10")).toBeNull();
    expect(parseExpositionFloat("")).toBeNull();
  });
});
