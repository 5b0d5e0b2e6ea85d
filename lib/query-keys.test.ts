import { expect, test } from "vitest";

import { queryKeyForTopic } from "@/lib/api/query-keys";

test("live topics map to the query-key prefixes they invalidate", () => {
  expect(queryKeyForTopic("runs")).toEqual(["runs"]);
  expect(queryKeyForTopic("run:42")).toEqual(["run", 42]);
  expect(queryKeyForTopic("hosts")).toEqual(["hosts"]);
  expect(queryKeyForTopic("plan:3")).toEqual(["plan", 3]);
  expect(queryKeyForTopic("plan-decision:abc")).toBeNull();
  expect(queryKeyForTopic("RUN:1")).toBeNull();
});
