import { describe, expect, test } from "vitest";

import type { TodoItem } from "../protocol/frames";
import {
  diffSnapshots,
  isProbablyTruncated,
  itemHistories,
  matchItems,
  MIN_PREFIX_MATCH_CHARS,
  normaliseContent,
  stuckItems,
  summarise,
  truncationOverlap,
} from "./todos";

const T0 = 1_750_000_000_000;
const MIN = 60_000;

const todo = (content: string, status: string, extra: Partial<TodoItem> = {}): TodoItem => ({
  content,
  status,
  ...extra,
});

describe("matching items between snapshots", () => {
  test("content is compared with whitespace normalised, case kept", () => {
    expect(normaliseContent("  Run   the\tsweep\n C=1..100 ")).toBe("Run the sweep C=1..100");
    expect(
      matchItems([todo("Run the sweep", "pending")], [todo(" Run  the sweep ", "in_progress")]),
    ).toEqual([{ prevIndex: 0, nextIndex: 0, by: "content" }]);
    expect(
      matchItems([todo("Run the sweep", "pending")], [todo("run the sweep", "pending")]),
    ).toEqual([]);
  });

  test("same id and content first, then content whatever the ids (renumbering), then id alone (an edit)", () => {
    const prev = [
      todo("Design", "completed", { id: "1" }),
      todo("Implement", "in_progress", { id: "2" }),
      todo("Test", "pending", { id: "3" }),
    ];
    // "Design" dropped, the rest renumbered, "Document" added as id 3, "Test" edited under id 2.
    const next = [
      todo("Implement", "completed", { id: "1" }),
      todo("Test the parser", "in_progress", { id: "2" }),
      todo("Document", "pending", { id: "3" }),
    ];
    expect(matchItems(prev, next)).toEqual([
      { prevIndex: 1, nextIndex: 0, by: "content" },
      // "Design" (id 1) and "Test" (id 3) are left; id 3 pairs with "Document" as an edit.
      { prevIndex: 2, nextIndex: 2, by: "id" },
    ]);
  });

  test("a truncated copy matches the full text; short common openings do not", () => {
    const full = "Run throughput benchmark C=1 to C=100";
    const cut = full.slice(0, 35); // "Run throughput benchmark C=1 to C=1"
    expect(truncationOverlap(full, cut)).toBe(35);
    expect(truncationOverlap(cut, full)).toBe(35);
    expect(truncationOverlap(full, `${full.slice(0, 30)}…`)).toBe(30);
    expect(truncationOverlap(full, `${full.slice(0, 27)}...`)).toBe(27);
    expect(MIN_PREFIX_MATCH_CHARS).toBe(24);
    expect(truncationOverlap(full, full.slice(0, 24))).toBe(24);
    expect(truncationOverlap(full, full.slice(0, 23))).toBe(0);
    expect(truncationOverlap("Run tests", "Run tests for the parser")).toBe(0);
    expect(truncationOverlap("Short", "Short")).toBe(5);

    expect(
      matchItems(
        [todo(full, "in_progress")],
        [todo("Other item", "pending"), todo(cut, "completed")],
      ),
    ).toEqual([{ prevIndex: 0, nextIndex: 1, by: "prefix" }]);
    // The candidate with the longest overlap wins.
    const a = "Extract hidden states for shard 1 of 4 on GPU 0";
    expect(
      matchItems(
        [todo(a, "pending")],
        [todo(a.slice(0, 30), "pending"), todo(a.slice(0, 40), "pending")],
      ),
    ).toEqual([{ prevIndex: 0, nextIndex: 1, by: "prefix" }]);
  });

  test("duplicates pair up in list order", () => {
    expect(
      matchItems(
        [todo("Same", "completed"), todo("Same", "pending")],
        [todo("Same", "completed"), todo("Same", "in_progress")],
      ),
    ).toEqual([
      { prevIndex: 0, nextIndex: 0, by: "content" },
      { prevIndex: 1, nextIndex: 1, by: "content" },
    ]);
  });
});

describe("diffSnapshots", () => {
  test("the first snapshot adds everything", () => {
    const items = [todo("A", "pending"), todo("B", "in_progress")];
    expect(diffSnapshots(null, items)).toEqual({
      added: items,
      removed: [],
      statusChanges: [],
      edited: [],
    });
  });

  test("Claude Code fixture steps: status changes and an added item", () => {
    const prev = [
      todo("Design the feature architecture", "completed", { id: "1", priority: "high" }),
      todo("Implement core functionality", "in_progress", { id: "2", priority: "high" }),
      todo("Add comprehensive tests", "pending", { id: "3", priority: "medium" }),
    ];
    const added = todo("Conduct security review and penetration testing", "pending", {
      id: "6",
      priority: "high",
    });
    const next = [
      todo("Design the feature architecture", "completed", { id: "1", priority: "high" }),
      todo("Implement core functionality", "completed", { id: "2", priority: "high" }),
      todo("Add comprehensive tests", "in_progress", { id: "3", priority: "medium" }),
      added,
    ];
    expect(diffSnapshots(prev, next)).toEqual({
      added: [added],
      removed: [],
      statusChanges: [
        { item: next[1], from: "in_progress", to: "completed" },
        { item: next[2], from: "pending", to: "in_progress" },
      ],
      edited: [],
    });
  });

  test("removed items, unknown statuses, edits by id; a truncated copy is not an edit", () => {
    const full = "Upload checkpoint-1500 to s3://drafter-ckpts and delete the local copy";
    const prev = [
      todo("Run eval", "in_progress"),
      todo(full, "pending", { id: "u" }),
      todo("Old wording", "pending", { id: "x" }),
    ];
    const next = [
      todo("Run eval", "failed"),
      todo(full.slice(0, 50), "in_progress", { id: "u" }),
      todo("New wording", "pending", { id: "x" }),
    ];
    const diff = diffSnapshots(prev, next);
    expect(diff.added).toEqual([]);
    expect(diff.removed).toEqual([]);
    expect(diff.statusChanges).toEqual([
      { item: next[0], from: "in_progress", to: "failed" },
      { item: next[1], from: "pending", to: "in_progress" },
    ]);
    expect(diff.edited).toEqual([{ from: prev[2], to: next[2] }]);

    expect(diffSnapshots([todo("Gone", "pending")], [])).toEqual({
      added: [],
      removed: [todo("Gone", "pending")],
      statusChanges: [],
      edited: [],
    });
  });
});

describe("itemHistories", () => {
  // A pending,B pending → A in_progress,+C → A completed,B in_progress → C removed; now = +60 min.
  const snapshots = [
    { ts: T0, seq: 1, items: [todo("A", "pending"), todo("B", "pending")] },
    {
      ts: T0 + 10 * MIN,
      seq: 2,
      items: [todo("A", "in_progress"), todo("B", "pending"), todo("C", "pending")],
    },
    {
      ts: T0 + 25 * MIN,
      seq: 3,
      items: [todo("A", "completed"), todo("B", "in_progress"), todo("C", "pending")],
    },
    { ts: T0 + 40 * MIN, seq: 4, items: [todo("A", "completed"), todo("B", "in_progress")] },
  ];
  const NOW = T0 + 60 * MIN;

  test("hand-computed timeline", () => {
    const histories = itemHistories(snapshots, NOW);
    expect(histories).toEqual([
      {
        key: "0.0",
        content: "A",
        id: null,
        priority: null,
        firstSeenMs: T0,
        startedMs: T0 + 10 * MIN,
        finishedMs: T0 + 25 * MIN,
        finalStatus: "completed",
        currentStatus: "completed",
        statusSinceMs: T0 + 25 * MIN,
        // Time in "completed" does not count on: the item is finished.
        timeInStatusMs: { pending: 10 * MIN, in_progress: 15 * MIN, completed: 0 },
        removedMs: null,
      },
      {
        key: "0.1",
        content: "B",
        id: null,
        priority: null,
        firstSeenMs: T0,
        startedMs: T0 + 25 * MIN,
        finishedMs: null,
        finalStatus: "in_progress",
        currentStatus: "in_progress",
        statusSinceMs: T0 + 25 * MIN,
        // Still in progress: counts until now.
        timeInStatusMs: { pending: 25 * MIN, in_progress: 35 * MIN },
        removedMs: null,
      },
      {
        key: "1.2",
        content: "C",
        id: null,
        priority: null,
        firstSeenMs: T0 + 10 * MIN,
        startedMs: null,
        finishedMs: null,
        finalStatus: "pending",
        currentStatus: null,
        statusSinceMs: T0 + 10 * MIN,
        // Removed: counts until the snapshot that dropped it.
        timeInStatusMs: { pending: 30 * MIN },
        removedMs: T0 + 40 * MIN,
      },
    ]);

    // Input order does not matter: snapshots are sorted by ts, then seq.
    expect(itemHistories([...snapshots].reverse(), NOW)).toEqual(histories);
    const sameTs = [
      { ts: T0, seq: 2, items: [todo("A", "completed")] },
      { ts: T0, seq: 1, items: [todo("A", "pending")] },
    ];
    expect(itemHistories(sameTs, T0 + MIN)[0]).toMatchObject({
      finalStatus: "completed",
      finishedMs: T0,
    });
    expect(itemHistories([], NOW)).toEqual([]);
  });

  test("stuck items: in progress longer than the threshold, longest first", () => {
    const histories = itemHistories(snapshots, NOW);
    expect(
      stuckItems(histories, NOW, 30 * MIN).map((s) => [s.history.content, s.inProgressMs]),
    ).toEqual([["B", 35 * MIN]]);
    expect(stuckItems(histories, NOW, 35 * MIN)).toEqual([]); // strictly longer
    const two = itemHistories(
      [
        { ts: T0, items: [todo("X", "in_progress"), todo("Y", "pending")] },
        { ts: T0 + 5 * MIN, items: [todo("X", "in_progress"), todo("Y", "in_progress")] },
      ],
      T0 + 20 * MIN,
    );
    expect(
      stuckItems(two, T0 + 20 * MIN, 10 * MIN).map((s) => [s.history.content, s.inProgressMs]),
    ).toEqual([
      ["X", 20 * MIN],
      ["Y", 15 * MIN],
    ]);
  });

  test("reopened, failed, unknown statuses, finished then removed", () => {
    const h = itemHistories(
      [
        {
          ts: T0,
          items: [
            todo("Reopen", "completed"),
            todo("Eval", "in_progress"),
            todo("Wait", "blocked"),
            todo("Done", "completed"),
          ],
        },
        {
          ts: T0 + 5 * MIN,
          items: [
            todo("Reopen", "in_progress"),
            todo("Eval", "failed"),
            todo("Wait", "blocked"),
            todo("Done", "completed"),
          ],
        },
        {
          ts: T0 + 8 * MIN,
          items: [todo("Reopen", "in_progress"), todo("Eval", "failed"), todo("Wait", "blocked")],
        },
      ],
      T0 + 10 * MIN,
    );
    const [reopen, evalItem, wait, done] = h;
    // Finished at T0, reopened at +5: no longer finished; the closed "completed" stretch counts.
    expect(reopen).toMatchObject({
      startedMs: T0 + 5 * MIN,
      finishedMs: null,
      timeInStatusMs: { completed: 5 * MIN, in_progress: 5 * MIN },
    });
    expect(evalItem).toMatchObject({
      startedMs: T0,
      finishedMs: T0 + 5 * MIN,
      finalStatus: "failed",
      timeInStatusMs: { in_progress: 5 * MIN, failed: 0 },
    });
    expect(wait).toMatchObject({
      finalStatus: "blocked",
      currentStatus: "blocked",
      timeInStatusMs: { blocked: 10 * MIN },
    });
    expect(done).toMatchObject({
      finishedMs: T0,
      removedMs: T0 + 8 * MIN,
      currentStatus: null,
      timeInStatusMs: { completed: 0 },
    });
  });

  test("truncated content stays one item and keeps its full text; ids follow the item", () => {
    const full = "Run throughput benchmark C=1 to C=100";
    const h = itemHistories(
      [
        { ts: T0, items: [todo(full, "in_progress", { id: "7", priority: "high" })] },
        { ts: T0 + MIN, items: [todo(full.slice(0, 35), "completed")] },
      ],
      T0 + 2 * MIN,
    );
    expect(h).toHaveLength(1);
    expect(h[0]).toMatchObject({
      content: full,
      id: "7",
      priority: "high",
      finishedMs: T0 + MIN,
      timeInStatusMs: { in_progress: MIN, completed: 0 },
    });
  });

  test("an item removed and written again later is a new item", () => {
    const h = itemHistories(
      [
        { ts: T0, items: [todo("Flaky", "pending")] },
        { ts: T0 + MIN, items: [] },
        { ts: T0 + 2 * MIN, items: [todo("Flaky", "pending")] },
      ],
      T0 + 3 * MIN,
    );
    expect(h.map((x) => [x.key, x.removedMs, x.timeInStatusMs.pending])).toEqual([
      ["0.0", T0 + MIN, MIN],
      ["2.0", null, MIN],
    ]);
  });

  test("a status named like an Object prototype key stays a plain key", () => {
    const h = itemHistories([{ ts: T0, items: [todo("x", "__proto__")] }], T0 + MIN);
    expect(Object.keys(h[0]?.timeInStatusMs ?? {})).toEqual(["__proto__"]);
    expect(h[0]?.timeInStatusMs.__proto__).toBe(MIN);
  });
});

describe("isProbablyTruncated", () => {
  const fifty = "Run throughput benchmark C=1 to C=100 and record t";
  test("cut at a long typical length mid-word; short lengths alone are not a cut", () => {
    expect(fifty).toHaveLength(50);
    expect(isProbablyTruncated(fifty)).toBe(false); // 50 chars is also just a short item
    expect(isProbablyTruncated("Upload the best checkpoint to S3")).toBe(false); // 32 chars, complete
    const hundred =
      "Extract hidden states for 914K samples on 4 GPUs and upload each file to S3 with at most 100 uploads";
    expect(hundred).toHaveLength(100);
    expect(isProbablyTruncated(hundred)).toBe(true);
    expect(isProbablyTruncated(hundred.slice(0, 99))).toBe(false); // 99 is no typical limit
    expect(isProbablyTruncated(`${hundred.slice(0, 99)}.`)).toBe(false); // closing punctuation
    expect(isProbablyTruncated(`${hundred.slice(0, 99)} `)).toBe(true); // cut after a space
  });

  test("a cut marker after a typical length, but not a writer's own ellipsis", () => {
    const hundred = "x".repeat(60) + " extraction pipeline on kpro5 with TP=2 and MTP a";
    expect(hundred.slice(0, 100)).toHaveLength(100);
    expect(isProbablyTruncated(`${hundred.slice(0, 100)}…`)).toBe(true); // slice(0, 100) + "…"
    expect(isProbablyTruncated(`${hundred.slice(0, 97)}...`)).toBe(true); // slice(0, 97) + "..." = 100
    expect(isProbablyTruncated("Waiting for build...")).toBe(false);
    expect(isProbablyTruncated("...")).toBe(false);
  });

  test("code points (Python slicing) and UTF-8 bytes count too", () => {
    const hundred =
      "Extract hidden states for 914K samples on 4 GPUs and upload each file to S3 with at most 100 uploads";
    const emoji = `🚀 ${hundred.slice(0, 98)}`; // 100 code points, 101 UTF-16 units
    expect([...emoji]).toHaveLength(100);
    expect(emoji).toHaveLength(101);
    expect(isProbablyTruncated(emoji)).toBe(true);
    const accented = "é".repeat(64); // 64 chars but 128 bytes: a long typical limit in bytes
    expect(isProbablyTruncated(accented)).toBe(true);
    expect(isProbablyTruncated("é".repeat(33))).toBe(false); // 33 chars, 66 bytes
  });

  test("short or empty text is never flagged", () => {
    expect(isProbablyTruncated("")).toBe(false);
    expect(isProbablyTruncated("Run tests")).toBe(false);
    expect(isProbablyTruncated(" ".repeat(50))).toBe(false);
  });
});

describe("summarise", () => {
  test("completed of total, cancelled not counting against progress, in-progress items in order", () => {
    const items = [
      todo("a", "completed"),
      todo("b", "in_progress"),
      todo("c", "cancelled"),
      todo("d", "pending"),
      todo("e", "failed"),
      todo("f", "in_progress"),
    ];
    expect(summarise(items)).toEqual({
      total: 6,
      completed: 1,
      cancelled: 1,
      byStatus: { completed: 1, in_progress: 2, cancelled: 1, pending: 1, failed: 1 },
      inProgress: [items[1], items[5]],
      fractionDone: 1 / 5,
    });
    expect(summarise([])).toEqual({
      total: 0,
      completed: 0,
      cancelled: 0,
      byStatus: {},
      inProgress: [],
      fractionDone: null,
    });
    expect(summarise([todo("x", "cancelled")]).fractionDone).toBeNull();
    expect(summarise([todo("x", "completed"), todo("y", "completed")]).fractionDone).toBe(1);
  });
});
