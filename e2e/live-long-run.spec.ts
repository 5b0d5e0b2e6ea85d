import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// A training run with a long history (more steps than the chart's point budget, so the page holds
// a downsampled series): a step pushed while the page is open is drawn live, value and
// data-last-step, without a reload and without re-reading the whole series over HTTP.

test.describe.configure({ mode: "serial" });

const HISTORY_STEPS = 2_400;

let token: string;

test.beforeAll(() => {
  token = createToken("e2e-live-long-host");
});

async function runIdOf(page: Page, key: string): Promise<number> {
  const listed = (await (
    await page.request.get(`/api/runs?q=${key}`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { runs: Array<{ id: number }> };
  return listed.runs[0]!.id;
}

test("a run page with 2,400 steps of history draws a newly pushed step live (value and data-last-step), with no reload or series refetch", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-live-long-${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `Live long ${run.slice(-8)}`,
    kind: "training",
  });
  // History in frames of 600 steps × 2 keys (the block path of ingest), loss = 2 − step / 2,000.
  for (let from = 0; from < HISTORY_STEPS; from += 600) {
    const points = [];
    for (let step = from; step < from + 600; step++)
      points.push(
        { key: "loss", step, value: 2 - step / 2_000 },
        { key: "lr", step, value: 0.001 },
      );
    await worker.send({ v: 1, id: randomUUID(), type: "run.metrics", run, points });
  }

  const metricsReads: string[] = [];
  page.on("request", (r) => {
    if (/\/api\/runs\/\d+\/metrics/.test(r.url())) metricsReads.push(r.url());
  });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${await runIdOf(page, run)}`);
  const loss = page.locator('figure[data-key="loss"]');
  await expect(loss).toHaveAttribute("data-last-step", String(HISTORY_STEPS - 1));
  // The history is downsampled (more steps than the point budget): this is the long-run case.
  await expect(page.getByTestId("metric-points").first()).toContainText(
    `of ${HISTORY_STEPS.toLocaleString("en-US")} points`,
  );
  await loss.getByText(/^Data table/).click();
  const lastRow = loss.getByTestId("chart-data").locator("tbody tr").last();
  await expect(lastRow).toContainText(String(HISTORY_STEPS - 1).replace(/(\d)(\d{3})$/, "$1,$2"));
  // Marks this document: a reload would drop it.
  await page.evaluate(
    () => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true),
  );
  const readsBefore = metricsReads.length;

  // Two new steps, one frame each, as a trainer sends them (small frames: the row path of ingest).
  for (const [step, value] of [
    [HISTORY_STEPS, -3.25],
    [HISTORY_STEPS + 1, 7.5],
  ] as const)
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.metrics",
      run,
      points: [
        { key: "loss", step, value },
        { key: "lr", step, value: 0.001 },
      ],
    });
  worker.close();

  await expect(loss).toHaveAttribute("data-last-step", String(HISTORY_STEPS + 1));
  await expect(lastRow).toContainText("2,401");
  await expect(lastRow).toContainText("7.5");
  // The dip at −3.25 (the lowest point of its column) is kept too: its own row in the data table.
  await expect(
    loss.getByTestId("chart-data").locator("tbody tr", { hasText: "2,400" }),
  ).toContainText("3.25");
  await expect(page.locator('figure[data-key="lr"]')).toHaveAttribute(
    "data-last-step",
    String(HISTORY_STEPS + 1),
  );
  expect(
    await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
  ).toBe(true);
  // Pushed over the live socket into the page's cache: the series was not fetched again.
  expect(metricsReads.slice(readsBefore)).toEqual([]);
});
