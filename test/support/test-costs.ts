import fs from "node:fs";

/**
 * Appends one line `{kind, ms, pid}` to the file named by PITWALL_TEST_COSTS (when set), so
 * a run can count its server boots and database clones and sum their wall time (ms). No-op
 * otherwise. Used by test/support; `npm test` sets it and prints the totals per stage.
 */
export function recordTestCost(kind: "server-boot" | "database-clone", ms: number): void {
  const file = process.env.PITWALL_TEST_COSTS;
  if (!file) return;
  fs.appendFileSync(file, `${JSON.stringify({ kind, ms, pid: process.pid })}\n`);
}
