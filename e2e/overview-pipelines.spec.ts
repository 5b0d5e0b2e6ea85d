import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";

import { connectWorker, createToken, wallPathOf } from "./support";

// The overview, pipeline and training views against the real server and a fresh embedded
// database, fed only through /ws/ingest the way a worker does: a progress bar that advances
// while a worker pushes, a run that turns stale (amber) when its worker stops, and a NaN metric
// drawn as a marker.

test.describe.configure({ mode: "serial" });

let token: string;

test.beforeAll(() => {
  token = createToken("e2e-pipe-host");
});

/** The overview row of the run called `name`. */
function runRow(page: Page, name: string) {
  return page
    .getByTestId("active-run")
    .filter({ has: page.getByRole("link", { name, exact: true }) });
}

async function waitUntilLive(page: Page) {
  await expect(page.getByRole("status", { name: /Connected/ }).first()).toBeVisible();
}

test("the overview's progress bar advances while a worker pushes", async ({ page, baseURL }) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-extract-${randomUUID()}`;
  const name = `Extraction ${run.slice(-6)}`;
  const progress = (done: number, uploaded: number) => ({
    v: 1,
    id: randomUUID(),
    type: "run.progress",
    run,
    workerId: "gpu0",
    bootId: "boot-1",
    done,
    counters: { "s3.uploaded": uploaded, "s3.inflight": 7 },
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name,
    kind: "extraction",
    total: 1000,
    unit: "samples",
  });
  await worker.send(progress(100, 90));

  await page.goto("/");
  const row = runRow(page, name);
  const bar = row.getByRole("progressbar");
  await expect(bar).toHaveAttribute("aria-valuenow", "10");
  await expect(row).toContainText("100 / 1,000 samples");
  await expect(row).toHaveAttribute("data-state", "running");
  await waitUntilLive(page);

  // While live the page polls only every 30 s: an update within 5 s came through the push.
  await worker.send(progress(400, 380));
  await expect(bar).toHaveAttribute("aria-valuenow", "40", { timeout: 5_000 });
  await expect(row).toContainText("400 / 1,000 samples");
  await expect(row).toContainText("40.0%");
  await worker.send(progress(750, 700));
  await expect(bar).toHaveAttribute("aria-valuenow", "75", { timeout: 5_000 });

  // The run page shows the same progress, the worker and the S3 panel.
  await row.getByRole("link", { name, exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/\d+$/);
  await expect(page.getByTestId("run-progress")).toContainText("750 / 1,000 samples");
  await expect(page.getByRole("row", { name: /gpu0/ })).toContainText("750");
  await expect(page.getByText("In flight")).toBeVisible();
  worker.close();
});

test("a run turns stale (amber, 'no push for …') when its worker stops pushing", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-gen-${randomUUID()}`;
  const name = `Generation ${run.slice(-6)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name,
    kind: "generation",
    total: 500,
    unit: "prompts",
    stallAfterS: 5,
  });
  await worker.send({ v: 1, id: randomUUID(), type: "run.progress", run, bootId: "b", done: 50 });

  await page.goto("/");
  const row = runRow(page, name);
  await expect(row).toHaveAttribute("data-state", "running");
  await expect(row.getByText("Running", { exact: true })).toBeVisible();
  worker.close();

  // Nothing is pushed when a worker goes quiet: the page derives "stale" on the server's clock.
  await expect(row).toHaveAttribute("data-state", "stale", { timeout: 15_000 });
  await expect(row.getByText("Stale", { exact: true })).toBeVisible();
  await expect(row.getByText("Running", { exact: true })).toHaveCount(0);
  await expect(row).toContainText(/no push for \d+ s/);
  // Stale runs are listed above running ones.
  const states = await page
    .getByTestId("active-run")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-state")));
  const firstRunning = states.indexOf("running");
  expect(states).toContain("stale");
  expect(firstRunning === -1 || states.lastIndexOf("stale") < firstRunning).toBe(true);

  // The wall view shows the same run, amber, full screen. The wall holds one overview page (50
  // active runs, stale first) and turns its own pages every 12 s when more are active than fit:
  // open the overview page that holds the run, then turn the wall's pages on the page's clock (not
  // 12 s of real time each) until it shows. Twice round per pass (the page count can grow while
  // turning: a taller row seen lowers the runs per page; see wall.spec.ts); between passes the
  // overview page is looked up again, as other runs going stale can move the run to the next one.
  await page.clock.install();
  const onWall = runRow(page, name);
  const pager = page.getByText(/^page \d+ of \d+/);
  let pages = 1;
  for (let pass = 0; pass < 4 && (pass === 0 || (await onWall.count()) === 0); pass++) {
    await page.goto(await wallPathOf(page, name));
    await expect(page.getByTestId("wall")).toBeVisible();
    await expect(page.getByTestId("active-run").first()).toBeVisible();
    pages = (await pager.count())
      ? Number(/of (\d+)/.exec((await pager.first().textContent()) ?? "")?.[1] ?? 1)
      : 1;
    for (let i = 0; i <= pages * 2 && (await onWall.count()) === 0; i++)
      await page.clock.runFor(12_000);
  }
  await expect(onWall, `the run on none of the wall's ${pages} pages`).toHaveAttribute(
    "data-state",
    "stale",
  );
});

test("a NaN metric value is drawn as a marker with its step, not as a gap or a zero", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-train-${randomUUID()}`;
  const name = `Drafter ${run.slice(-6)}`;
  await worker.send({ v: 1, id: randomUUID(), type: "run.start", run, name, kind: "training" });
  const points = Array.from({ length: 30 }, (_, i) => ({
    key: "loss",
    step: i * 100,
    value: i === 12 ? "NaN" : 2 / (1 + i),
  }));
  await worker.send({ v: 1, id: randomUUID(), type: "run.metrics", run, points });

  await page.goto("/");
  await runRow(page, name).getByRole("link", { name, exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/\d+$/);
  const chart = page.locator('[data-testid="metric-chart"][data-key="loss"]');
  await expect(chart.locator(".recharts-line-curve").first()).toBeVisible();
  const marker = chart.locator(".nonfinite-marker");
  await expect(marker).toHaveCount(1);
  await expect(marker).toHaveAttribute("data-step", "1200");
  await expect(marker.locator("title")).toHaveText("NaN at step 1,200");
  await expect(page.getByTestId("nonfinite-note")).toContainText("NaN at step 1,200");

  // A second NaN pushed live gets its own marker.
  await waitUntilLive(page);
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.metrics",
    run,
    points: [{ key: "loss", step: 3000, value: "NaN" }],
  });
  await expect(marker).toHaveCount(2, { timeout: 5_000 });
  worker.close();
});
