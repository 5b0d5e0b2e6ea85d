import path from "node:path";
import { expect, test } from "@playwright/test";

import { createToken, pitwall } from "./support";

// Imported files the importers used to refuse or mislabel, as a user sees them: a vllm bench
// sweep summary.json (swept parameter on the run page) and a training log cut mid-run (an
// "ended" run, neutral, never running or failed). Seeded through `pitwall import` only.

const testdata = path.resolve(import.meta.dirname, "../lib/importers/testdata");
const sweep64 = path.join(
  testdata,
  "vllm-sweep",
  "SERVE--max_num_seqs=64-max_num_batched_tokens=8192-BENCH--max_concurrency=32",
  "summary.json",
);
const sweep128 = path.join(
  testdata,
  "vllm-sweep",
  "SERVE--max_num_seqs=128-max_num_batched_tokens=8192-BENCH--max_concurrency=32",
  "summary.json",
);
const twoWriters = path.join(testdata, "llamafactory-two-writers", "trainer_log.jsonl");

test.describe.configure({ mode: "serial" });

let token: string;

test.beforeAll(() => {
  token = createToken("e2e-gaps-host");
});

test("a vllm bench sweep summary.json: one point per run, the swept max_num_seqs in the point table, config and series", async ({
  page,
  baseURL,
}) => {
  const out = pitwall(
    ["import", sweep64, sweep128, "--name", "Qwen3-8B max_num_seqs sweep", "--tag", "e2e-sweep"],
    { PITWALL_URL: baseURL!, PITWALL_TOKEN: token },
  );
  expect(out).toContain("vllm-bench-serve, 6 points");

  await page.goto("/runs?tag=e2e-sweep");
  await page.getByRole("link", { name: "Qwen3-8B max_num_seqs sweep" }).click();
  await expect(page).toHaveURL(/\/runs\/\d+$/);
  const points = page
    .getByRole("table")
    .filter({ has: page.getByRole("columnheader", { name: "max_num_seqs" }) });
  await expect(points.getByRole("columnheader", { name: "run #" })).toBeVisible();
  await expect(points.getByRole("row")).toHaveCount(2 + 6);
  await expect(
    points
      .getByRole("row")
      .filter({ hasText: "1,588" })
      .getByRole("cell", { name: "128", exact: true }),
  ).toBeVisible();
  await expect(page.getByText("sweep.max_num_seqs")).toBeVisible();
  await expect(page.getByText("max_num_seqs: 64").first()).toBeVisible();
});

test("a training log cut mid-run ends 'Ended' (neutral), not running or stale", async ({
  page,
  baseURL,
}) => {
  const out = pitwall(["import", twoWriters, "--name", "sft two writers", "--tag", "e2e-ended"], {
    PITWALL_URL: baseURL!,
    PITWALL_TOKEN: token,
  });
  expect(out).toContain("149 steps logged twice (84 with different values); later values kept");

  await page.goto("/runs?tag=e2e-ended");
  const row = page.getByRole("row").filter({ hasText: "sft two writers" });
  await expect(row.getByText("Ended", { exact: true })).toBeVisible();
  await row.getByRole("link", { name: "sft two writers" }).click();
  await expect(page.getByText("Ended", { exact: true }).first()).toBeVisible();
  await expect(page.getByText("Running", { exact: true })).toHaveCount(0);
});
