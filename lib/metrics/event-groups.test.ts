import { describe, expect, test } from "vitest";

import { groupEvents, messageSignature, repeatLabel, singleEventGroups } from "./event-groups";

const T = Date.parse("2026-12-01T12:00:00.000Z");
let n = 0;
const ev = (
  secondsAgo: number,
  message: string,
  extra: { level?: string; code?: string | null; runId?: number } = {},
) => ({
  id: String(++n),
  ts: new Date(T - secondsAgo * 1000).toISOString(),
  level: extra.level ?? "warn",
  message,
  code: extra.code ?? null,
  runId: extra.runId ?? 1,
});
const slow = (worker: string, sample: number, latencyS: number) =>
  `${worker}: upload of sample-${String(sample).padStart(7, "0")}.safetensors failed: 503 SlowDown (S3 latency ${latencyS} s); retrying`;

describe("groupEvents", () => {
  test("nine 503 SlowDown retries on gpu1 within 5 min are one line of 9, apart from gpu2's and from other messages", () => {
    const events = [
      ev(0, slow("gpu1", 9_001, 14)),
      ev(10, slow("gpu2", 9_000, 12), {}),
      ...Array.from({ length: 8 }, (_, i) => ev(30 + i * 35, slow("gpu1", 8_990 - i, 10 + i))),
      ev(400, "100,000 / 914,000 samples extracted (10.9 %)", { level: "info" }),
    ];
    const groups = groupEvents(events);
    expect(groups.map((g) => [g.count, g.latest.message.slice(0, 4), g.firstTs])).toEqual([
      [9, "gpu1", new Date(T - 275_000).toISOString()],
      [1, "gpu2", new Date(T - 10_000).toISOString()],
      [1, "100,", new Date(T - 400_000).toISOString()],
    ]);
    expect(groups[0]!.latest.id).toBe(events[0]!.id);
  });

  test("repeats further apart than the window, of another run, level or alert code stay separate", () => {
    const m = slow("gpu1", 1, 5);
    const groups = groupEvents(
      [
        ev(0, m),
        ev(60, m, { runId: 2 }),
        ev(70, m, { level: "error" }),
        ev(80, m, { code: "deleted_before_upload" }),
        ev(2_000, m),
      ],
      600_000,
    );
    expect(groups.map((g) => g.count)).toEqual([1, 1, 1, 1, 1]);
  });

  test("signatures mask loose numbers but keep worker names", () => {
    expect(messageSignature(slow("gpu1", 42, 7))).toBe(
      "gpu1: upload of sample-#.safetensors failed: # SlowDown (S3 latency # s); retrying",
    );
    expect(messageSignature("w0 done 1,234.5 items")).toBe("w0 done # items");
  });
});

describe("repeatLabel", () => {
  test("a group reads as its count over the time from its oldest to its newest event; a single event has none", () => {
    const m = slow("gpu1", 1, 5);
    const [nine] = groupEvents(Array.from({ length: 9 }, (_, i) => ev(i * 35, m)));
    expect(repeatLabel(nine!)).toBe("9× over 4m 40s");
    expect(singleEventGroups([ev(0, m), ev(10, m)]).map(repeatLabel)).toEqual([null, null]);
  });
});
