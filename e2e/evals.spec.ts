import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";

import { E2E_USERS, signInAs } from "./auth-users";
import { connectWorker, createToken } from "./support";

// Drafter evals against the real server and a fresh embedded database, fed through /ws/ingest the
// way a training job does: three checkpoints scored one at a time draw a τ line that crosses the
// 12.4 reference without a reload; an approver manages baselines on /baselines, a viewer only
// reads them. Every τ below is computed by hand from the raw counts pushed:
// τ = (Σ accepted draft tokens + Σ verify steps) / Σ verify steps.

test.describe.configure({ mode: "serial" });

let token: string;

test.beforeAll(() => {
  token = createToken("e2e-drafter-host");
});

async function waitUntilLive(page: Page) {
  await expect(page.getByRole("status", { name: /Connected/ }).first()).toBeVisible();
}

/** Two prompts of one checkpoint: a short one and a long one (the long one weighs more). */
function checkpointResults(step: number, a: [number, number], b: [number, number]) {
  return [
    {
      key: `s${step}-a`,
      checkpoint: { step, uri: `s3://drafters/e2e/step-${step}` },
      promptId: "humaneval/0",
      category: "code",
      dataset: "humaneval",
      verifySteps: a[0],
      acceptedTokens: a[1],
      draft: { block_size: 16, tree: "ddtree-8" },
    },
    {
      key: `s${step}-b`,
      checkpoint: { step, uri: `s3://drafters/e2e/step-${step}` },
      promptId: "mbpp/7",
      category: "code",
      dataset: "mbpp",
      verifySteps: b[0],
      acceptedTokens: b[1],
      draft: { block_size: 16, tree: "ddtree-8" },
    },
  ];
}

test("three checkpoints pushed live draw a τ line that crosses the 12.4 reference, without a reload", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const suffix = randomUUID().slice(0, 6);
  const baseline = `DFlash DDTree-8 ${suffix}`;
  const run = `e2e-dflash-${suffix}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "baseline.upsert",
    name: baseline,
    metric: "tau",
    value: 12.4,
    tolerance: 0.2,
    dataset: "humaneval",
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `DFlash bs16 ${suffix}`,
    kind: "training",
  });
  const listed = (await (
    await page.request.get(`/api/runs?q=${run}`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { runs: Array<{ id: number }> };
  const runId = listed.runs[0]!.id;

  await page.goto(`/runs/${runId}`);
  await waitUntilLive(page);
  // Marks this document: a reload would drop it.
  await page.evaluate(
    () => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true),
  );
  const chart = page.getByTestId("tau-chart");
  const dots = chart.locator("circle.dot-tau");
  const taus = page.getByTestId("checkpoint-tau");
  // A training run without eval results shows no eval section.
  await expect(chart).toHaveCount(0);

  // step 1000: (900 + 3300 + 100 + 300) / 400 = 11.50 (the mean of per-prompt τ 10 and 12 would be 11.00).
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.eval",
    run,
    results: checkpointResults(1000, [100, 900], [300, 3300]),
  });
  await expect(dots).toHaveCount(1);
  await expect(taus).toHaveText(["11.50"]);
  // The reference line is drawn with its label.
  await expect(chart.locator("text", { hasText: baseline })).toBeVisible();

  // step 2000: (1100 + 1120 + 200) / 200 = 12.10.
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.eval",
    run,
    results: checkpointResults(2000, [100, 1100], [100, 1120]),
  });
  await expect(dots).toHaveCount(2);
  await expect(taus).toHaveText(["12.10", "11.50"]);

  // step 3000: (1300 + 4600 + 500) / 500 = 12.80 (the mean of per-prompt τ 14 and 12.5 would be 13.25).
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.eval",
    run,
    results: checkpointResults(3000, [100, 1300], [400, 4600]),
  });
  await expect(dots).toHaveCount(3);
  // The table lists the latest checkpoint first.
  await expect(taus).toHaveText(["12.80", "12.10", "11.50"]);
  worker.close();

  // The line crosses the reference: the first dot is drawn below the 12.4 line, the last above it
  // (SVG y grows downwards).
  const refY = Number(
    await chart.locator(".recharts-reference-line line").first().getAttribute("y1"),
  );
  const centres = await dots.evaluateAll((els) =>
    els.map((e) => ({ cx: Number(e.getAttribute("cx")), cy: Number(e.getAttribute("cy")) })),
  );
  const byX = [...centres].sort((a, b) => a.cx - b.cx);
  expect(byX[0]!.cy).toBeGreaterThan(refY);
  expect(byX[2]!.cy).toBeLessThan(refY);
  const last = centres.indexOf(byX[2]!);

  // The tooltip of the last checkpoint gives τ with its counts.
  await dots.nth(last).hover();
  await expect(page.getByText("6,400 tokens / 500 verify steps")).toBeVisible();
  await expect(chart.locator(".recharts-tooltip-wrapper")).toContainText("τ 12.80");
  // Headline against the reference: 12.80 − 12.40.
  await expect(page.getByText(`Latest vs ${baseline}`)).toBeVisible();
  await expect(page.getByText("+0.40", { exact: true })).toBeVisible();

  expect(
    await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
  ).toBe(true);

  // The overview draws the same run as one line, against the same reference.
  await page.goto("/evals");
  await expect(page.getByRole("link", { name: `DFlash bs16 ${suffix}` })).toBeVisible();
  await expect(page.getByTestId("tau-chart").locator("text", { hasText: baseline })).toBeVisible();
});

test("a run scored with two draft settings gets a line per setting on /evals, agreeing with its page; an absurd baseline is named off-scale, not drawn", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const suffix = randomUUID().slice(0, 6);
  const train = `e2e-multi-${suffix}`;
  const junk = `junk ${suffix}`;
  const uri = (step: number) => `s3://drafters/${train}/step-${step}`;
  const send = (frame: Record<string, unknown>) =>
    worker.send({ v: 1, id: randomUUID(), ...frame });
  // The largest value the frame accepts is still far off any τ scale.
  await send({ type: "baseline.upsert", name: junk, metric: "tau", value: 1e9 });
  await send({ type: "run.start", run: train, name: `DFlash multi ${suffix}`, kind: "training" });
  for (const step of [1000, 2000])
    await send({ type: "run.artifact", run: train, kind: "checkpoint", uri: uri(step), step });
  const d16 = { block_size: 16, tree: "ddtree-8" };
  const r = (
    key: string,
    step: number,
    verifySteps: number,
    acceptedTokens: number,
    draft?: Record<string, unknown>,
  ) => ({
    key,
    checkpoint: { uri: uri(step) },
    promptId: key,
    category: "code",
    dataset: "humaneval",
    verifySteps,
    acceptedTokens,
    ...(draft ? { draft } : {}),
  });
  await send({ type: "run.start", run: `${train}-a`, name: `eval d16 ${suffix}`, kind: "eval" });
  // d16: step 1000 (1000 + 100) / 100 = 11.00; step 2000 (1208 + 100) / 100 = 13.08.
  await send({
    type: "run.eval",
    run: `${train}-a`,
    results: [r("a1", 1000, 100, 1000, d16), r("a2", 2000, 100, 1208, d16)],
  });
  await send({ type: "run.start", run: `${train}-b`, name: `eval plain ${suffix}`, kind: "eval" });
  // No draft settings: step 2000 (2330 + 200) / 200 = 12.65. Summed with d16 it would read 12.79.
  await send({ type: "run.eval", run: `${train}-b`, results: [r("b1", 2000, 200, 2330)] });
  worker.close();

  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto("/evals");
  const rows = page.getByRole("row").filter({ hasText: `DFlash multi ${suffix}` });
  await expect(rows).toHaveCount(2);
  const d16Row = rows.filter({ hasText: "draft: block_size 16 · tree ddtree-8" });
  const plainRow = rows.filter({ hasText: "draft: no draft settings" });
  await expect(d16Row).toContainText("13.08");
  await expect(plainRow).toContainText("12.65");
  await expect(rows.filter({ hasText: "12.79" })).toHaveCount(0);
  const chart = page.getByTestId("tau-chart");
  await expect(
    page.getByTestId("baseline-off-scale").filter({ hasText: junk }).first(),
  ).toContainText("off-scale, not drawn");
  // The y axis stays on the τ scale (no tick near 1e9).
  const tickText = chart.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value");
  await expect(tickText.first()).toBeVisible();
  const ticks = await tickText.allTextContents();
  expect(ticks.length).toBeGreaterThan(1);
  for (const t of ticks) expect(Number(t.replace(/,/g, ""))).toBeLessThan(100);
  await page.screenshot({ path: "/tmp/pitwall-evalfix/evals.png", fullPage: true });

  // The run page shows one setting at a time; the default (tie on verify steps → smaller key) is d16.
  await rows
    .first()
    .getByRole("link", { name: `DFlash multi ${suffix}` })
    .click();
  await expect(page.getByTestId("checkpoint-tau")).toHaveText(["13.08", "11.00"]);
  await expect(page.getByText("Latest checkpoint")).toBeVisible();
  await page.getByLabel("Draft settings").selectOption({ label: "no draft settings (1 results)" });
  await expect(page.getByTestId("checkpoint-tau")).toHaveText(["12.65"]);
  await page.getByLabel("Draft settings").selectOption({ index: 0 });
  await expect(page.getByTestId("checkpoint-tau")).toHaveText(["13.08", "11.00"]);
  await expect(
    page.getByTestId("baseline-off-scale").filter({ hasText: junk }).first(),
  ).toBeVisible();
  await page.screenshot({ path: "/tmp/pitwall-evalfix/run.png", fullPage: true });
});

test("an approver creates a baseline on /baselines and it appears; a duplicate name is refused; a viewer only reads", async ({
  page,
  browser,
}) => {
  const name = `Public EAGLE-3 ${randomUUID().slice(0, 6)}`;
  await page.goto("/baselines");
  await waitUntilLive(page);
  await page.getByRole("button", { name: "New baseline" }).click();
  const form = page.getByRole("form", { name: "New baseline" });
  await form.getByLabel(/^Name/).fill(name);
  await form.getByLabel(/^Value/).fill("6.2");
  await form.getByLabel(/^Tolerance/).fill("0.15");
  await form.getByLabel(/^Dataset/).fill("mtbench");
  await form.getByLabel(/^Draft settings/).fill("steps=5, topk=1, num_draft_tokens=6");
  await form.getByLabel(/^Source URL/).fill("https://example.com/eagle3");
  await form.getByRole("button", { name: "Create baseline" }).click();

  const row = page.locator(`tr[data-baseline="${name}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText("6.20");
  await expect(row).toContainText("0.15");
  await expect(row).toContainText("mtbench");
  await expect(row).toContainText("num_draft_tokens 6 · steps 5 · topk 1");

  // The same name again: the server's 409 is shown, nothing is added.
  await page.getByRole("button", { name: "New baseline" }).click();
  const again = page.getByRole("form", { name: "New baseline" });
  await again.getByLabel(/^Name/).fill(name);
  await again.getByLabel(/^Value/).fill("7");
  await again.getByRole("button", { name: "Create baseline" }).click();
  await expect(again.getByRole("alert")).toContainText("already exists");
  await expect(page.locator(`tr[data-baseline="${name}"]`)).toHaveCount(1);
  await again.getByRole("button", { name: "Cancel" }).click();

  // A viewer sees the list without any form or action.
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewerPage = await context.newPage();
  await signInAs(viewerPage, E2E_USERS.viewer, "/baselines");
  await expect(viewerPage.locator(`tr[data-baseline="${name}"]`)).toContainText("6.20");
  await expect(viewerPage.getByRole("button", { name: "New baseline" })).toHaveCount(0);
  await expect(viewerPage.getByRole("button", { name: `Edit ${name}` })).toHaveCount(0);
  await expect(viewerPage.getByRole("button", { name: `Delete ${name}` })).toHaveCount(0);

  // The approver edits it; the viewer's open page follows live.
  await page.getByRole("button", { name: `Edit ${name}` }).click();
  const edit = page.getByRole("form", { name: `Edit baseline ${name}` });
  await edit.getByLabel(/^Value/).fill("6.4");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(row).toContainText("6.40");
  await expect(viewerPage.locator(`tr[data-baseline="${name}"]`)).toContainText("6.40");
  await context.close();
});
