import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// Annotations on a training run's step charts (a checkpoint at its step, a warning and a plan
// decision placed at the step reached at their time) with their toggle; and a serving run page's
// time range kept in the URL. Seeded the way workers push them (/ws/ingest).

const MIN = 60_000;

test("a training run's charts mark its checkpoint, a warning and a plan decision, and the toggle hides them", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, createToken("e2e-annotations"));
  const suffix = randomUUID().slice(0, 8);
  const run = `e2e-ann-${suffix}`;
  const t0 = Date.now() - 10 * MIN;
  const send = (frame: Record<string, unknown>) =>
    worker.send({ v: 1, id: randomUUID(), ...frame });
  await send({
    type: "run.start",
    run,
    name: `Annotated ${suffix}`,
    kind: "training",
    startedAt: t0,
  });
  const steps = (from: number, to: number) =>
    Array.from({ length: (to - from) / 20 + 1 }, (_, i) => from + i * 20).map((step) => ({
      key: "loss",
      step,
      value: 3 / (1 + step / 200),
    }));
  await send({ type: "run.metrics", run, points: steps(0, 1000) });
  // Checkpoint 500 saved 5 min in; a warning 2.5 min in (half-way to the checkpoint: step ≈ 250).
  await send({
    type: "run.artifact",
    run,
    kind: "checkpoint",
    step: 500,
    uri: `s3://e2e-ann/${suffix}/checkpoint-500/`,
    ts: t0 + 5 * MIN,
  });
  await send({
    type: "run.event",
    run,
    level: "warn",
    ts: t0 + 2.5 * MIN,
    message: `grad_norm spiked ${suffix}`,
  });
  const plan = `e2e-ann-plan-${suffix}`;
  const title = `Halve the lr ${suffix}`;
  await send({ type: "plan.propose", plan, run, title, items: [{ content: "lr 1.5e-4" }] });
  const plans = (await (await page.request.get("/api/plans?limit=500")).json()) as {
    plans: Array<{ id: number; title: string }>;
  };
  const planId = plans.plans.find((p) => p.title === title)!.id;
  expect(
    (
      await page.request.post(`/api/plans/by-id/${planId}/decision`, {
        data: { decision: "approved" },
        headers: { origin: baseURL! },
      })
    ).ok(),
  ).toBe(true);
  // Training goes on after the decision.
  await send({ type: "run.metrics", run, points: steps(1020, 1100) });
  worker.close();

  const listed = (await (await page.request.get(`/api/runs?q=${run}`)).json()) as {
    runs: Array<{ id: number }>;
  };
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${listed.runs[0]!.id}`);
  const chart = page.locator('[data-testid="metric-chart"][data-key="loss"]');
  await expect(chart.locator(".recharts-line-curve").first()).toBeVisible();
  await expect(chart.locator(".annotation-checkpoint")).toHaveCount(1);
  await expect(chart.locator(".annotation-event")).toHaveCount(1);
  await expect(chart.locator(".annotation-plan")).toHaveCount(1);
  const list = page.getByTestId("annotation-list");
  await expect(list).toContainText("1 checkpoint");
  await expect(
    list.getByRole("listitem").filter({ hasText: `grad_norm spiked ${suffix}` }),
  ).toContainText("step ≈ 250");
  await expect(list).toContainText(`plan approved: ${title}`);
  // The warning's line sits left of the checkpoint's (step 250 < 500), which sits left of the decision's.
  const xOf = async (sel: string) => (await chart.locator(`${sel} line`).boundingBox())!.x;
  const [ev, ck, pl] = [
    await xOf(".annotation-event"),
    await xOf(".annotation-checkpoint"),
    await xOf(".annotation-plan"),
  ];
  expect(ev).toBeLessThan(ck);
  expect(ck).toBeLessThan(pl);

  await page.getByTestId("annotations-toggle").uncheck();
  await expect(chart.locator(".annotation")).toHaveCount(0);
  await expect(page.getByTestId("annotation-list")).toHaveCount(0);
  await page.getByTestId("annotations-toggle").check();
  await expect(chart.locator(".annotation")).toHaveCount(3);
});

test("a serving run page has the time-range picker; the range goes in the URL and the telemetry read", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, createToken("e2e-serving-range"));
  const run = `e2e-serving-range-${randomUUID().slice(0, 8)}`;
  const now = Date.now();
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `Serving range ${run.slice(-8)}`,
    kind: "serving",
    startedAt: now - 3 * 3_600_000,
  });
  const points = Array.from({ length: 36 }, (_, i) => now - 3 * 3_600_000 + i * 5 * MIN).map(
    (t) => ({ key: "serving/num_requests_running", step: t, value: 10, ts: t }),
  );
  await worker.send({ v: 1, id: randomUUID(), type: "run.metrics", run, points });
  worker.close();
  const listed = (await (await page.request.get(`/api/runs?q=${run}`)).json()) as {
    runs: Array<{ id: number }>;
  };
  const id = listed.runs[0]!.id;

  await page.goto(`/runs/${id}`);
  const picker = page.getByTestId("time-range-picker");
  await expect(picker).toBeVisible();
  // A choice made before the page is hydrated is lost (no handler yet): a person chooses again.
  await expect(async () => {
    await picker.getByLabel("Time range").selectOption("6h");
    await expect(page).toHaveURL(new RegExp(`/runs/${id}\\?range=6h`), { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  // A reload keeps the window.
  await page.reload();
  await expect(page.getByTestId("time-range-picker").getByLabel("Time range")).toHaveValue("6h");

  // The telemetry read follows the range: 6 h wide with it, the run's last hour of data without.
  const wide = (await (await page.request.get(`/api/runs/${id}/serving?range=6h`)).json()) as {
    fromMs: number;
    toMs: number;
  };
  expect(wide.toMs - wide.fromMs).toBe(6 * 3_600_000);
  const plain = (await (await page.request.get(`/api/runs/${id}/serving`)).json()) as {
    fromMs: number;
    toMs: number;
  };
  expect(plain.toMs - plain.fromMs).toBeLessThanOrEqual(3_600_000);

  const bad = await page.request.get(`/api/runs/${id}/serving?from=10&to=5`);
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_query");
});

test("hovering one metric chart of a training run shows the same step's tooltip on its other charts", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, createToken("e2e-metric-sync"));
  const suffix = randomUUID().slice(0, 8);
  const run = `e2e-sync-${suffix}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: run,
    kind: "training",
  });
  const points = Array.from({ length: 51 }, (_, i) => i * 20).flatMap((step) => [
    { key: "loss", step, value: 3 / (1 + step / 200) },
    { key: "lr", step, value: 0.001 + step / 1e6 },
  ]);
  await worker.send({ v: 1, id: randomUUID(), type: "run.metrics", run, points });
  worker.close();
  const found = (await (
    await page.request.get(`/api/runs?q=${encodeURIComponent(run)}`)
  ).json()) as { runs: Array<{ id: number }> };

  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.goto(`/runs/${found.runs[0]!.id}`);
  const loss = page.locator('[data-testid="metric-chart"][data-key="loss"]');
  const lr = page.locator('[data-testid="metric-chart"][data-key="lr"]');
  await expect(loss.locator(".recharts-line").first()).toBeVisible();
  await expect(lr.locator(".recharts-line").first()).toBeVisible();
  const box = (await loss.locator(".recharts-surface").first().boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect(loss.locator(".recharts-tooltip-wrapper")).toContainText(/step/);
  await expect(lr.locator(".recharts-tooltip-wrapper")).toBeVisible();
  await expect(lr.locator(".recharts-tooltip-wrapper")).toContainText(/step \d/);
});
