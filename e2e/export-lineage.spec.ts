import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import Papa from "papaparse";

import { connectWorker, createToken } from "./support";

// Export and checkpoint lineage against the real server on a fresh embedded database, seeded only
// through /ws/ingest like a worker: the run page's CSV download parses back to the numbers that
// were pushed, and a checkpoint's page links the training run that produced it, the eval run that
// scored it and the benchmark run that served it (the last arriving live).

test.describe.configure({ mode: "serial" });

let token: string;

test.beforeAll(() => {
  token = createToken("e2e-lineage-host");
});

/** Opens the run page of the run called `name` through the run list's search. */
async function openRun(page: Page, name: string): Promise<void> {
  await page.goto(`/runs?q=${encodeURIComponent(name)}`);
  await page.getByRole("link", { name, exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/\d+$/);
}

test("the run page's CSV export of benchmark points parses back to the pushed numbers", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-export-${randomUUID()}`;
  const name = `Export sweep ${run.slice(-6)}`;
  const points = [
    {
      key: "c1",
      concurrency: 1,
      completed: 8,
      durationS: 30.25,
      outputTokPerS: 26.5,
      ttftMsMedian: 80.125,
      tpotMsMedian: 37.7,
    },
    {
      key: "c32",
      concurrency: 32,
      completed: 256,
      durationS: 112.75,
      outputTokPerS: 577.8,
      ttftMsMedian: 412.3,
      tpotMsMedian: 52.1,
      itlMsP99: "NaN",
    },
    {
      key: "c64",
      concurrency: 64,
      completed: 512,
      durationS: 220.5,
      outputTokPerS: 903.0000000000001,
      ttftMsMedian: 1204.5,
      tpotMsMedian: 61.2,
    },
  ];
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name,
    kind: "benchmark",
    config: { model: "Qwen/Qwen3.6-27B", engine: "sglang" },
  });
  await worker.send({ v: 1, id: randomUUID(), type: "run.benchmark", run, points });
  worker.close();

  await openRun(page, name);
  const runId = Number(new URL(page.url()).pathname.split("/").at(-1));
  await page.getByRole("button", { name: "Export" }).click();
  const menu = page.getByRole("region", { name: "Export this run's data" });
  await expect(menu).toContainText("Benchmark points");
  await expect(menu).toContainText("3 rows");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    menu.getByRole("link", { name: "Download benchmark points as CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`run-${runId}-points.csv`);

  const parsed = Papa.parse<Record<string, string>>(
    fs.readFileSync((await download.path())!, "utf8"),
    { header: true, skipEmptyLines: true },
  );
  expect(parsed.errors).toEqual([]);
  const rows = parsed.data;
  expect(rows.map((r) => r.key)).toEqual(["c1", "c32", "c64"]);
  const num = (cell: string | undefined) =>
    cell === undefined || cell === "" ? null : Number(cell);
  for (const [i, p] of points.entries()) {
    const r = rows[i]!;
    expect([
      num(r.concurrency),
      num(r.completedRequests),
      num(r.durationS),
      num(r.outputTokPerS),
      num(r.ttftMsMedian),
      num(r.tpotMsMedian),
    ]).toEqual([
      p.concurrency,
      p.completed,
      p.durationS,
      p.outputTokPerS,
      p.ttftMsMedian,
      p.tpotMsMedian,
    ]);
  }
  expect(rows[1]!.itlMsP99).toBe("NaN");
  expect(rows[0]!.itlMsP99).toBe("");
});

test("a checkpoint's page links the training run that produced it, the eval run that scored it and the benchmark run that served it", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const tag = randomUUID().slice(-8);
  const uri = `s3://e2e-drafters/dflash-${tag}/step-4000`;
  const names = {
    train: `DFlash drafter b16 · run ${tag}`,
    eval: `Eval step-4000 ${tag}`,
    bench: `Serve step-4000 ${tag}`,
  };
  const keys = { train: `e2e-train-${tag}`, eval: `e2e-eval-${tag}`, bench: `e2e-bench-${tag}` };
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run: keys.train,
    name: names.train,
    kind: "training",
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.artifact",
    run: keys.train,
    kind: "checkpoint",
    uri,
    step: 4000,
    sizeBytes: 3_400_000_000,
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run: keys.eval,
    name: names.eval,
    kind: "eval",
  });
  // τ = (1100 + 200 + 300 + 100) / (200 + 100) = 5.67
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.eval",
    run: keys.eval,
    results: [
      {
        key: "he/1",
        checkpoint: { step: 4000, uri },
        promptId: "he/1",
        dataset: "humaneval",
        verifySteps: 200,
        acceptedTokens: 1100,
        draft: { blockSize: 16 },
      },
      {
        key: "he/2",
        checkpoint: { step: 4000, uri },
        promptId: "he/2",
        dataset: "humaneval",
        verifySteps: 100,
        acceptedTokens: 300,
        draft: { blockSize: 16 },
      },
    ],
  });

  // From the training run's checkpoint table to the checkpoint page.
  await openRun(page, names.train);
  await page.getByRole("link", { name: uri, exact: true }).click();
  await expect(page).toHaveURL(`/checkpoints/view?uri=${encodeURIComponent(uri)}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("step-4000");
  await expect(page.getByRole("link", { name: names.train, exact: true }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: names.eval, exact: true }).first()).toBeVisible();
  await expect(page.getByRole("row", { name: new RegExp(names.eval) })).toContainText("5.67");
  await expect(page.getByRole("heading", { name: /Served by · 0/ })).toBeVisible();

  // The benchmark run that serves it arrives while the page is open.
  await expect(page.getByRole("status", { name: /Connected/ }).first()).toBeVisible();
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run: keys.bench,
    name: names.bench,
    kind: "benchmark",
    config: { checkpoint: uri, engine: "sglang" },
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.benchmark",
    run: keys.bench,
    points: [{ key: "c1", concurrency: 1, completed: 8, outputTokPerS: 31.5 }],
  });
  worker.close();
  await expect(page.getByRole("heading", { name: /Served by · 1/ })).toBeVisible();
  const served = page.getByRole("row", { name: new RegExp(names.bench) });
  await expect(served).toContainText("31.5 tok/s");
  await expect(served).toContainText("checkpoint");

  // The list shows it; the benchmark run's configuration links back.
  await page.goto("/checkpoints");
  const listRow = page.getByRole("row", {
    name: new RegExp(`Checkpoint ${uri.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
  });
  await expect(listRow).toContainText(names.train);
  await expect(listRow).toContainText("5.67");
  // At 1280 px the producing run's name and the URI's last segment are shown in full (the name was cut to "DFlash drafter b16 · r…").
  expect(
    await listRow
      .getByRole("cell")
      .nth(2)
      .evaluate((td) => td.scrollWidth <= td.clientWidth),
  ).toBe(true);
  expect(
    await listRow.locator("[data-uri-tail]").evaluate((el) => el.scrollWidth <= el.clientWidth),
  ).toBe(true);
  await openRun(page, names.bench);
  await page.getByRole("link", { name: uri, exact: true }).click();
  await expect(page).toHaveURL(`/checkpoints/view?uri=${encodeURIComponent(uri)}`);
  await expect(page.getByRole("link", { name: names.bench, exact: true })).toBeVisible();
});
