import { describe, expect, test } from "vitest";

import { seededRng } from "@/scripts/demo/rng";

import { clientFrame } from "./frames";
import { fastRunMetricsFrame } from "./metrics-fast";
import { checkFrame } from "./validate";

// The fast run.metrics check never accepts what zod (the schema of record) rejects, and returns
// what zod returns; what it is unsure of falls through to zod, which words the error.

const T = Date.UTC(2026, 11, 2);
const good = {
  v: 1,
  id: "f1",
  type: "run.metrics",
  run: "r",
  points: [
    { key: "loss", step: 1, value: 0.5, ts: T },
    { key: "lr", step: 2, value: "NaN" },
  ],
};

/** Random small mutations of a valid frame, most of them invalid in one field. */
function mutate(rnd: () => number): Record<string, unknown> {
  const frame = structuredClone(good) as Record<string, unknown> & {
    points: Array<Record<string, unknown>>;
  };
  const odd: unknown[] = [
    undefined,
    null,
    "",
    "x".repeat(201),
    "NaN",
    "Infinity",
    "-Infinity",
    "nan",
    "7",
    1.5,
    -1,
    0,
    2 ** 53,
    -(2 ** 53),
    NaN,
    Infinity,
    T,
    T * 1000,
    946684799999,
    4102444800000,
    [],
    {},
    true,
  ];
  const pickOdd = () => odd[Math.floor(rnd() * odd.length)];
  const field = ["key", "step", "value", "ts", "extra"][Math.floor(rnd() * 5)]!;
  const where = rnd();
  if (where < 0.7) {
    const p = frame.points[Math.floor(rnd() * frame.points.length)]!;
    if (rnd() < 0.1) delete p[field];
    else p[field] = pickOdd();
  } else if (where < 0.85) {
    frame[["id", "run", "type", "extra"][Math.floor(rnd() * 4)]!] = pickOdd();
  } else {
    frame.points = rnd() < 0.3 ? [] : (pickOdd() as never);
  }
  return frame;
}

describe("fast run.metrics check", () => {
  test("accepts only what zod accepts and returns the same frame", () => {
    const rnd = seededRng(11);
    let accepted = 0;
    for (let i = 0; i < 2000; i++) {
      const frame = i === 0 ? structuredClone(good) : mutate(rnd);
      const fast = fastRunMetricsFrame(structuredClone(frame));
      const zod = clientFrame.safeParse(structuredClone(frame));
      if (fast) {
        accepted++;
        expect(zod.success, JSON.stringify(frame)).toBe(true);
        expect(fast).toEqual(zod.data);
      }
    }
    expect(accepted).toBeGreaterThan(20);
  });

  test("a bad point still gets zod's message naming its index and field", () => {
    const check = checkFrame({
      ...good,
      points: [good.points[0], { key: "loss", step: 3, value: 1, ts: T * 1000 }],
    });
    expect(check).toMatchObject({
      ok: false,
      code: "time_out_of_range",
      message: expect.stringMatching(/^points\.1\.ts: .*microseconds/),
    });
    const extra = checkFrame({ ...good, points: [{ key: "loss", step: 1, value: 1, unit: "x" }] });
    expect(extra).toMatchObject({
      ok: false,
      code: "invalid_frame",
      message: expect.stringContaining("points.0"),
    });
  });

  test("NaN and ±Infinity, as strings or numbers, come out as numbers", () => {
    const check = checkFrame({
      ...good,
      points: [
        { key: "a", step: 1, value: "-Infinity" },
        { key: "a", step: 2, value: NaN },
        { key: "a", step: 3, value: 1 },
      ],
    });
    expect(
      check.ok && check.frame.type === "run.metrics" && check.frame.points.map((p) => p.value),
    ).toEqual([-Infinity, NaN, 1]);
  });
});
