import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";

import { E2E_USERS, signInAs } from "./auth-users";
import { connectWorker, createToken } from "./support";

// Every page fits a phone: at 390 × 844 no page is wider than the viewport (tables scroll inside
// their cards), and the navigation is a menu. Seeded through /ws/ingest like a worker, with long
// names, keys and URIs, one run of each kind, a session, a plan and a baseline.

test.describe.configure({ mode: "serial" });
test.use({ viewport: { width: 390, height: 844 } });

const tag = `phone-${randomUUID().slice(0, 8)}`;
const host = `e2e-phone-host-with-a-long-name-${tag}`;
const runIds: Record<string, number> = {};
let sessionId = 0;
let planId = 0;

test.beforeAll(async ({ baseURL, request }) => {
  const worker = await connectWorker(baseURL!, createToken(host));
  const id = () => randomUUID();
  const long = "Qwen3.6-27B · TP2 · MTP · mem 0.88 · a run name long enough to be cut on a phone";
  const start = (kind: string, extra: Record<string, unknown> = {}) => ({
    v: 1,
    id: id(),
    type: "run.start",
    run: `${tag}-${kind}`,
    name: `${kind} · ${long}`,
    kind,
    tags: [tag, "a-rather-long-tag-name"],
    config: {
      model: "Qwen/Qwen3.6-27B-Instruct-with-a-long-model-id",
      engine: "sglang",
      s3: { bucket: "s3://a-very-long-bucket-name/with/a/deep/prefix/for/shards" },
    },
    ...extra,
  });
  await worker.send(start("benchmark"));
  const point = (c: number, extra: Record<string, unknown> = {}) => ({
    key: `c${c}-${JSON.stringify(extra)}`,
    concurrency: c,
    completed: 64,
    outputTokPerS: 40 * c,
    ttftMsMedian: 90 * c,
    ttftMsP99: 120 * c,
    tpotMsMedian: 20 + c,
    tpotMsP99: 30 + c,
    ...extra,
  });
  await worker.send({
    v: 1,
    id: id(),
    type: "run.benchmark",
    run: `${tag}-benchmark`,
    points: [1, 2, 4, 8, 16, 32, 64, 128].map((c) => point(c)),
  });
  await worker.send({
    v: 1,
    id: id(),
    type: "run.benchmark",
    run: `${tag}-benchmark`,
    points: [30_000, 60_000, 100_000].map((n) =>
      point(1, { scenario: "long-context", inputLen: n, outputLen: 512 }),
    ),
  });
  await worker.send(start("extraction", { total: 1000, unit: "samples" }));
  await worker.send({
    v: 1,
    id: id(),
    type: "run.progress",
    run: `${tag}-extraction`,
    workerId: "gpu0",
    bootId: "b0",
    done: 1000,
    counters: { "s3.uploaded": 990, "local.deleted": 990, "s3.bytes": 9.9e11 },
  });
  await worker.send({
    v: 1,
    id: id(),
    type: "run.artifact",
    run: `${tag}-extraction`,
    kind: "upload",
    uri: "s3://a-very-long-bucket-name/with/a/deep/prefix/for/shards/gpu0/shard-00001.tar",
    sizeBytes: 2.75e9,
  });
  await worker.send({
    v: 1,
    id: id(),
    type: "run.end",
    run: `${tag}-extraction`,
    status: "succeeded",
  });
  await worker.send(start("generation", { total: 100_000, unit: "prompts" }));
  await worker.send({
    v: 1,
    id: id(),
    type: "run.progress",
    run: `${tag}-generation`,
    workerId: "w0",
    bootId: "b0",
    done: 176,
  });
  await worker.send(start("training"));
  await worker.send({
    v: 1,
    id: id(),
    type: "run.metrics",
    run: `${tag}-training`,
    points: [1, 2, 3].flatMap((s) => [
      { key: "train/loss", step: s * 100, value: 3 / s },
      { key: "lr", step: s * 100, value: 3e-4 },
    ]),
  });
  await worker.send({
    v: 1,
    id: id(),
    type: "run.artifact",
    run: `${tag}-training`,
    kind: "checkpoint",
    step: 300,
    uri: "s3://dflash-ckpts/qwen3.6-27b-b16/run7/checkpoint-000300/",
  });
  await worker.send(start("eval"));
  await worker.send({
    v: 1,
    id: id(),
    type: "run.eval",
    run: `${tag}-eval`,
    results: ["coding", "math"].map((category, i) => ({
      key: `r${i}`,
      checkpoint: { step: 300, uri: "s3://dflash-ckpts/qwen3.6-27b-b16/run7/checkpoint-000300/" },
      promptId: `p${i}`,
      category,
      dataset: "spec-bench-mini",
      verifySteps: 50,
      acceptedTokens: 400,
    })),
  });
  await worker.send(start("serving"));
  const t0 = Date.now() - 60_000;
  await worker.send({
    v: 1,
    id: id(),
    type: "run.metrics",
    run: `${tag}-serving`,
    points: [0, 1, 2].flatMap((i) => [
      { key: "serving/up", step: t0 + i * 5000, value: 1 },
      { key: "serving/running_requests", step: t0 + i * 5000, value: 20 + i },
      { key: "serving/kv_cache_usage", step: t0 + i * 5000, value: 0.4 },
      { key: "serving/ttft_ms_p50", step: t0 + i * 5000, value: 120 },
    ]),
  });
  await worker.send({
    v: 1,
    id: id(),
    type: "baseline.upsert",
    name: `DDTree-8 public drafter (coding) ${tag}`,
    metric: "tau",
    value: 12.4,
    tolerance: 0.3,
    settings: { category: "coding" },
  });
  await worker.send({
    v: 1,
    id: id(),
    type: "session.todos",
    session: `${tag}-session`,
    source: "pushed",
    title: `Agent session ${long}`,
    seq: 1,
    ts: Date.now(),
    items: [
      {
        content: `Run the throughput sweep C=1..128 on ${host} and upload every result`,
        status: "in_progress",
      },
    ],
  });
  await worker.send({
    v: 1,
    id: id(),
    type: "plan.propose",
    plan: `${tag}-plan`,
    session: `${tag}-session`,
    run: `${tag}-extraction`,
    title: `Phone check: resume the extraction ${long}`,
    items: [
      {
        content: "Resume from the last checkpoint and re-upload the missing shards",
        priority: "high",
      },
    ],
  });
  worker.close();

  const runs = (await (await request.get(`/api/runs?tag=${tag}&limit=50`)).json()) as {
    runs: Array<{ id: number; kind: string }>;
  };
  for (const r of runs.runs) runIds[r.kind] = r.id;
  const sessions = (await (await request.get("/api/sessions")).json()) as {
    sessions: Array<{ id: number; key: string }>;
  };
  sessionId = sessions.sessions.find((s) => s.key === `${tag}-session`)!.id;
  const plans = (await (await request.get(`/api/plans?session=${sessionId}`)).json()) as {
    plans: Array<{ id: number }>;
  };
  planId = plans.plans[0]!.id;
});

/** Visits `path` and checks nothing makes the document wider than the 390 px viewport. */
async function fitsThePhone(page: Page, path: string) {
  await page.goto(path);
  await expect(page.locator("main")).not.toBeEmpty();
  await page.waitForLoadState("networkidle");
  const { scrollWidth, wide, cut } = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const offenders: string[] = [];
    // A phone has no hover: text cut short ("…" or hidden overflow) with no tooltip cannot be read at all.
    const cutShort: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("body *")) {
      const r = el.getBoundingClientRect();
      if (el.closest("main") && r.right > vw + 1 && !el.closest(".scroll-x"))
        offenders.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? "").slice(0, 40)}"`);
      const style = getComputedStyle(el);
      const text = [...el.childNodes].some(
        (n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim(),
      );
      if (
        text &&
        r.width > 1 &&
        !el.closest(".sr-only") &&
        style.overflowX !== "visible" &&
        el.scrollWidth > el.clientWidth + 1 &&
        !el.closest("[title]")
      )
        cutShort.push(`"${(el.textContent ?? "").trim().slice(0, 40)}"`);
    }
    return {
      scrollWidth: document.documentElement.scrollWidth,
      wide: offenders.slice(0, 3),
      cut: cutShort.slice(0, 3),
    };
  });
  // Soft: one run reports every page that does not fit, not only the first.
  expect.soft(wide, `${path}: elements past the right edge`).toEqual([]);
  expect.soft(cut, `${path}: text cut short without a tooltip`).toEqual([]);
  expect.soft(scrollWidth, `${path} is wider than the phone`).toBeLessThanOrEqual(390);
}

/** True when `el` shows all of its text: not cut by "…" nor by a line clamp (a phone has no hover for a tooltip). */
function shownInFull(el: Element): boolean {
  return el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1;
}

test("every page fits a 390 px phone, and the navigation is a menu", async ({ page }) => {
  // It visits every page in turn: a minute on a loaded 2-core machine.
  test.slow();
  expect(Object.keys(runIds).sort()).toEqual([
    "benchmark",
    "eval",
    "extraction",
    "generation",
    "serving",
    "training",
  ]);
  const paths = [
    "/",
    "/runs",
    ...Object.values(runIds).map((id) => `/runs/${id}`),
    `/compare?ids=${runIds.benchmark}`,
    "/evals",
    "/sessions",
    `/sessions/${sessionId}`,
    "/plans",
    `/plans/${planId}`,
    "/hosts",
    `/hosts/${encodeURIComponent(host)}`,
    "/baselines",
    "/checkpoints",
    "/inbox",
    "/alerts",
  ];
  for (const path of paths) await fitsThePhone(page, path);
  // A plan's title wraps in full wherever it is shown: the waiting card, the plans list, the plan and its session.
  const planTitle = /^Phone check: resume the extraction/;
  for (const path of ["/", "/plans", `/sessions/${sessionId}`]) {
    await page.goto(path);
    const title = page.getByRole("link", { name: planTitle }).first();
    await expect(title).toBeVisible();
    expect(await title.evaluate(shownInFull), `${path}: the plan title is cut`).toBe(true);
  }
  await page.goto(`/plans/${planId}`);
  expect(
    await page.getByRole("heading", { level: 1 }).evaluate(shownInFull),
    "the plan page's title is cut",
  ).toBe(true);
  // So does a recently finished run's name on the overview (it was cut to "Q…" beside its figures).
  await page.goto("/");
  const finished = page.getByRole("link", { name: /^extraction · Qwen3\.6-27B/ }).first();
  await expect(finished).toBeVisible();
  expect(await finished.evaluate(shownInFull), "a finished run's name is cut").toBe(true);
  // The checkpoints table keeps room for its URI column (its fixed columns left it 0 px wide).
  await page.goto("/checkpoints");
  const uriCell = page.getByRole("link", { name: /^Checkpoint s3:/ }).first();
  await expect(uriCell).toBeVisible();
  expect(
    (await uriCell.boundingBox())!.width,
    "the checkpoint URI column is squeezed",
  ).toBeGreaterThan(120);
  // Decide the seeded plan so that no plan of this spec stays pending for the specs after it.
  const decided = await page.request.post(`/api/plans/by-id/${planId}/decision`, {
    data: { decision: "rejected", comment: "seeded by the phone-width spec" },
    headers: { Origin: new URL(page.url()).origin },
  });
  expect(decided.status()).toBe(200);

  // The section links live behind the menu button on a phone.
  await page.goto("/");
  await expect(page.getByRole("link", { name: "Runs", exact: true })).toBeHidden();
  await page.getByTestId("nav-menu").click();
  await page.getByRole("link", { name: "Runs", exact: true }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByTestId("nav-menu")).toHaveAttribute("aria-expanded", "false");
  // Runs stack as cards on a phone; a wide table scrolls in its own focusable region.
  await expect(
    page
      .getByRole("list", { name: "Runs" })
      .getByRole("link", { name: /^benchmark · Qwen3\.6-27B/ }),
  ).toBeVisible();
  await page.goto(`/runs/${runIds.benchmark}`);
  const region = page.getByRole("region").first();
  await expect(region).toHaveAttribute("tabindex", "0");
  expect(await region.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
});

test("the admin page fits a phone too", async ({ page }) => {
  await signInAs(page, E2E_USERS.admin, "/admin");
  await fitsThePhone(page, "/admin");
});

test("the sign-in page fits a phone", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await fitsThePhone(page, "/sign-in");
  await context.close();
});
