import { describe, expect, test } from "vitest";

import { hostState, runState } from "./staleness";

const S = 1000;
const NOW = 1_750_000_000_000;

describe("runState", () => {
  test("finished statuses stay as they are, however old the last push", () => {
    expect(runState("succeeded", NOW - 86_400 * S, 120, NOW)).toBe("succeeded");
    expect(runState("failed", NOW - 86_400 * S, 120, NOW)).toBe("failed");
    expect(runState("cancelled", NOW - 86_400 * S, 120, NOW)).toBe("cancelled");
  });

  test("running until more than stallAfterS seconds without a push", () => {
    expect(runState("running", NOW, 120, NOW)).toBe("running");
    expect(runState("running", NOW - 120 * S, 120, NOW)).toBe("running");
    expect(runState("running", NOW - 120 * S - 1, 120, NOW)).toBe("stale");
    expect(runState("running", NOW - 31 * S, 30, NOW)).toBe("stale");
  });

  test("a push from the future (clock skew) is fresh", () => {
    expect(runState("running", NOW + 60 * S, 120, NOW)).toBe("running");
  });

  test("an unusable push time never looks running", () => {
    expect(runState("running", Number.NaN, 120, NOW)).toBe("stale");
  });
});

describe("hostState", () => {
  test("never seen: offline", () => {
    expect(hostState(null, 10, NOW)).toBe("offline");
    expect(hostState(Number.NaN, 10, NOW)).toBe("offline");
  });

  test("10 s interval: online to 30 s, stale after 3 missed beats, offline after 300 s", () => {
    expect(hostState(NOW, 10, NOW)).toBe("online");
    expect(hostState(NOW - 30 * S, 10, NOW)).toBe("online");
    expect(hostState(NOW - 30 * S - 1, 10, NOW)).toBe("stale");
    expect(hostState(NOW - 300 * S, 10, NOW)).toBe("stale");
    expect(hostState(NOW - 300 * S - 1, 10, NOW)).toBe("offline");
  });

  test("200 s interval: offline waits for 3 missed beats (600 s), so there is no stale band", () => {
    expect(hostState(NOW - 400 * S, 200, NOW)).toBe("online");
    expect(hostState(NOW - 600 * S, 200, NOW)).toBe("online");
    expect(hostState(NOW - 600 * S - 1, 200, NOW)).toBe("offline");
  });

  test("100 s interval: 3 beats = 300 s, straight from online to offline", () => {
    expect(hostState(NOW - 300 * S, 100, NOW)).toBe("online");
    expect(hostState(NOW - 300 * S - 1, 100, NOW)).toBe("offline");
  });

  test("a heartbeat from the future (clock skew) is online", () => {
    expect(hostState(NOW + 5 * S, 10, NOW)).toBe("online");
  });

  test("an unusable interval gives no grace: stale at once, offline after 300 s", () => {
    expect(hostState(NOW, 0, NOW)).toBe("online");
    expect(hostState(NOW - 1, 0, NOW)).toBe("stale");
    expect(hostState(NOW - 1, Number.NaN, NOW)).toBe("stale");
    expect(hostState(NOW - 300 * S - 1, -5, NOW)).toBe("offline");
  });
});
