import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { createTestDatabase } from "@/test/support/db";

import { CoalescingPublisher } from "./coalescing-publisher";

// The ingest path announces changed topics after COMMIT through one CoalescingPublisher per pool:
// topics of many commits share one pitwall_publish call, so `runs` is NOTIFYed once per call
// however many batches touched it, and nothing is lost.

let url: string;
let pool: pg.Pool;
let listener: pg.Client;
const heard: Array<{ topic: string; seq?: number }> = [];

beforeAll(async () => {
  url = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 2 });
  listener = new pg.Client({ connectionString: url });
  await listener.connect();
  listener.on("notification", (n) =>
    heard.push(JSON.parse(n.payload ?? "{}") as { topic: string; seq?: number }),
  );
  await listener.query("LISTEN pitwall_live");
});

afterAll(async () => {
  await listener?.end();
  await pool?.end();
});

async function heardAtLeast(n: number): Promise<void> {
  for (let i = 0; i < 100 && heard.length < n; i++) await new Promise((r) => setTimeout(r, 20));
}

test("topics published while a call is in flight go out together in the next call, each once", async () => {
  heard.length = 0;
  const publisher = new CoalescingPublisher(pool);
  publisher.publish(["runs", "run:7"]); // first call starts at once
  for (let i = 0; i < 50; i++) publisher.publish(["runs", "hosts", "run:7"]); // all wait for the second call
  await publisher.flushed();
  await heardAtLeast(5);
  const runs = heard.filter((h) => h.topic === "runs");
  expect(runs).toHaveLength(2); // 51 publishes, 2 calls
  expect(heard.filter((h) => h.topic === "hosts")).toHaveLength(1);
  // run topics keep their seq, bumped once per call.
  expect(heard.filter((h) => h.topic === "run:7").map((h) => h.seq)).toEqual([1, 2]);
});

test("a failed call is logged and dropped; the publisher keeps working", async () => {
  const dead = new pg.Pool({ connectionString: url, max: 1 });
  await dead.end();
  const warnings: unknown[] = [];
  const broken = new CoalescingPublisher(dead, { warn: (obj: unknown) => void warnings.push(obj) });
  broken.publish(["runs"]);
  await broken.flushed();
  expect(warnings).toHaveLength(1);

  heard.length = 0;
  const publisher = new CoalescingPublisher(pool);
  publisher.publish(["evals"]);
  await publisher.flushed();
  await heardAtLeast(1);
  expect(heard).toEqual([{ topic: "evals" }]);
});
