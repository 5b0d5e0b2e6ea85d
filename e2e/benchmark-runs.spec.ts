import { randomUUID } from "node:crypto";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";

import { fixturePath } from "../test/support/fixtures";
import { connectWorker, createToken, pitwall } from "./support";

// A user's path through benchmark runs, against the real server on a fresh embedded database,
// seeded only through the public paths a worker uses (CLI import, /ws/ingest).

const llamaFile = fixturePath(
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
);

test.describe.configure({ mode: "serial" });

let token: string;

test.beforeAll(() => {
  token = createToken("e2e-host");
});

/** The dots the aggregate output tok/s series (all of them) draw in the throughput chart. */
function throughputDots(page: Page) {
  return page.getByTestId("throughput-chart").locator(".dot-output-tok-s");
}

test("an imported SGLang file shows as a run whose chart has one point per line", async ({
  page,
  baseURL,
}) => {
  const out = pitwall(["import", llamaFile, "--tag", "e2e-import"], {
    PITWALL_URL: baseURL!,
    PITWALL_TOKEN: token,
  });
  expect(out).toContain("7 points");

  await page.goto("/runs");
  const link = page.getByRole("link", { name: path.basename(llamaFile) });
  await expect(link).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(/\/runs\/\d+$/);
  await expect(page.getByRole("heading", { name: /Output tok\/s by/ })).toBeVisible();
  await expect(throughputDots(page)).toHaveCount(7);
  // The file mixes two input/output lengths: two series, each with its peak in the summary.
  // The overall peak is the file's largest output_throughput (4288.05 tok/s at 16 req/s).
  const summary = page.getByRole("table").first();
  await expect(
    summary
      .getByRole("row", { name: /1,024 in \/ 1,024 out/ })
      .getByRole("cell", { name: "4,288", exact: true }),
  ).toBeVisible();
});

test("a point pushed by a live worker appears without a reload", async ({ page, baseURL }) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-live-${randomUUID()}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: "Live sweep e2e",
    kind: "benchmark",
    config: { model: "Qwen/Qwen3-32B", engine: "sglang" },
  });
  const point = (c: number, tokPerS: number) => ({
    key: `c${c}`,
    concurrency: c,
    completed: 10 * c,
    outputTokPerS: tokPerS,
    ttftMsMedian: 80 + c,
    tpotMsMedian: 30 + c / 4,
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.benchmark",
    run,
    points: [point(1, 26.5), point(2, 51.25)],
  });

  await page.goto("/runs");
  await page.getByRole("link", { name: "Live sweep e2e" }).click();
  await expect(throughputDots(page)).toHaveCount(2);
  const pageLoads: string[] = [];
  page.on("load", () => pageLoads.push(page.url()));

  // Connected to /ws/live: the page then only polls every 30 s, so a point showing up within
  // 5 s arrived through the live push, not the fallback polling.
  await expect(page.getByRole("status", { name: /Connected/ })).toBeVisible();
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.benchmark",
    run,
    points: [point(64, 1234.5)],
  });
  await expect(
    page.getByRole("row", { name: /^64 ok/ }).getByRole("cell", { name: "1,235", exact: true }),
  ).toBeVisible({ timeout: 5_000 });
  await expect(throughputDots(page)).toHaveCount(3);
  expect(pageLoads).toEqual([]);
  worker.close();
});
