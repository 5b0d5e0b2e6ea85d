import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { createToken } from "./support";

// The inbox count and its oldest wait on the wall, and the top bar's count on a phone, both in the
// server-rendered HTML: checked with JavaScript off, so what shows is the first paint (never "-").
// An item is opened through the public API as an agent's hook does; the database is shared with
// other specs, so counts are checked against the API rather than exact numbers.

test("the wall shows the inbox count and the oldest wait from the first paint; the top bar shows the count at 390 px", async ({
  browser,
  baseURL,
  request,
}) => {
  const tag = randomUUID().slice(0, 6);
  const token = createToken(`e2e-wall-inbox-${tag}`);
  const res = await request.post(`${baseURL}/api/inbox`, {
    headers: { authorization: `Bearer ${token}` },
    data: {
      key: `e2e:${tag}:wall`,
      kind: "permission",
      agent: "claude-code",
      toolName: "Bash",
      summary: `make sweep-${tag}`,
      input: { command: `make sweep-${tag}` },
      project: "pitwall",
      expiresInS: 600,
    },
  });
  expect(res.status()).toBe(201);
  const state = test.info().project.use.storageState;
  const oldestPattern = /^in the inbox · oldest (\d+ s|\d+ min|\d+ h \d+ min|\d+ d \d+ h)$/;

  // A TV: no script runs, yet the figure holds the number and the oldest wait.
  const tv = await browser.newContext({
    baseURL,
    javaScriptEnabled: false,
    storageState: state,
    viewport: { width: 1920, height: 1080 },
  });
  const wall = await tv.newPage();
  await wall.goto("/?wall=1");
  const figure = wall.locator('[data-testid="wall-figure"][data-figure="inbox"]');
  await expect(figure).toBeVisible();
  const value = figure.locator("div").first();
  await expect(value).toHaveText(/^\d+$/);
  expect(Number(await value.textContent())).toBeGreaterThanOrEqual(1);
  await expect(figure.locator("div").nth(1)).toHaveText(oldestPattern);
  await tv.close();

  // A phone: the top bar's count is in the first paint, on screen and a full touch target.
  const phone = await browser.newContext({
    baseURL,
    javaScriptEnabled: false,
    storageState: state,
    viewport: { width: 390, height: 844 },
  });
  const page = await phone.newPage();
  await page.goto("/runs");
  const count = page.getByTestId("inbox-count");
  await expect(count).toBeVisible();
  await expect(count).toHaveAccessibleName(/^Inbox: \d+ waiting$/);
  const n = Number((await count.getAttribute("aria-label"))!.match(/\d+/)![0]);
  expect(n).toBeGreaterThanOrEqual(1);
  const box = (await count.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(box.height).toBeGreaterThanOrEqual(44);
  await phone.close();

  // With JavaScript (hydrated, the search box drawn): nothing covers the count; a tap opens the inbox.
  const live = await browser.newContext({
    baseURL,
    storageState: state,
    viewport: { width: 390, height: 844 },
  });
  const tap = await live.newPage();
  await tap.goto("/runs");
  await expect(tap.getByRole("combobox", { name: /Search runs/ })).toBeVisible();
  await tap.getByTestId("inbox-count").click({ timeout: 5_000 }); // fails when another element takes the tap
  await expect(tap).toHaveURL(/\/inbox$/);
  expect(await tap.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await live.close();
});

test("the wall's inbox figure follows the inbox live", async ({ page, baseURL, request }) => {
  const tag = randomUUID().slice(0, 6);
  const token = createToken(`e2e-wall-live-${tag}`);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto("/?wall=1");
  const value = page.locator('[data-testid="wall-figure"][data-figure="inbox"] > div').first();
  await expect(value).toHaveText(/^\d+$/);
  const api = async () =>
    ((await (await request.get(`${baseURL}/api/inbox`)).json()) as { count: number }).count;
  const res = await request.post(`${baseURL}/api/inbox`, {
    headers: { authorization: `Bearer ${token}` },
    data: {
      key: `e2e:${tag}:live`,
      kind: "notice",
      agent: "claude-code",
      toolName: "idle_prompt",
      summary: "Claude is waiting for your input",
      expiresInS: 600,
    },
  });
  expect(res.status()).toBe(201);
  // The figure catches up with the API's count without a reload.
  await expect(async () => expect(Number(await value.textContent())).toBe(await api())).toPass({
    timeout: 20_000,
  });
});
