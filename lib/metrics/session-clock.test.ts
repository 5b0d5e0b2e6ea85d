import { describe, expect, test } from "vitest";

import { sessionClockMs } from "./session-clock";

const now = Date.parse("2026-12-02T09:00:00Z");
const last = "2026-07-01T12:00:00.000Z";

describe("sessionClockMs", () => {
  test("an imported transcript with no live state stops at its latest snapshot", () => {
    expect(sessionClockMs({ source: "claude-code", lastUpdateAt: last, live: null }, now)).toBe(
      Date.parse(last),
    );
    expect(
      sessionClockMs({ source: "opencode", lastUpdateAt: new Date(last), live: null }, now),
    ).toBe(Date.parse(last));
  });

  test("a session the Claude Code or opencode hooks push live runs on now, whatever its source", () => {
    const live = { state: "working", since: "2026-12-02T08:59:00.000Z" };
    expect(
      sessionClockMs(
        { source: "claude-code", lastUpdateAt: "2026-12-02T08:30:00.000Z", live },
        now,
      ),
    ).toBe(now);
    expect(
      sessionClockMs(
        {
          source: "opencode",
          lastUpdateAt: "2026-12-02T08:30:00.000Z",
          live: { ...live, state: "waiting" },
        },
        now,
      ),
    ).toBe(now);
    expect(sessionClockMs({ source: "pushed", lastUpdateAt: last, live: null }, now)).toBe(now);
  });

  test("an ended session stops at the later of its end and its latest snapshot; bad times fall back to now", () => {
    const ended = { state: "ended", since: "2026-12-02T08:40:00.000Z" };
    expect(
      sessionClockMs(
        { source: "claude-code", lastUpdateAt: "2026-12-02T08:30:00.000Z", live: ended },
        now,
      ),
    ).toBe(Date.parse(ended.since));
    expect(
      sessionClockMs(
        { source: "claude-code", lastUpdateAt: "2026-12-02T08:50:00.000Z", live: ended },
        now,
      ),
    ).toBe(Date.parse("2026-12-02T08:50:00.000Z"));
    expect(
      sessionClockMs({ source: "claude-code", lastUpdateAt: "not a time", live: null }, now),
    ).toBe(now);
  });
});
