import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { connectWorker, createToken } from "./support";

// Wall mode on a 1920 × 1080 TV: no text under 24 px, headline figures of 48 px or more, and the
// same warning repeated by a worker shown once with its count. Seeded through /ws/ingest.

test.use({ viewport: { width: 1920, height: 1080 } });

test("the wall reads across a room and folds repeated events", async ({ page, baseURL }) => {
  const worker = await connectWorker(baseURL!, createToken(`e2e-wall-${randomUUID().slice(0, 6)}`));
  const run = `wall-${randomUUID()}`;
  await worker.send({ v: 1, id: randomUUID(), type: "run.start", run, name: "Wall extraction", kind: "extraction", total: 1000, unit: "samples" });
  await worker.send({ v: 1, id: randomUUID(), type: "run.progress", run, workerId: "gpu1", bootId: "b", done: 10 });
  const now = Date.now();
  for (let i = 0; i < 9; i++) {
    const message = `gpu1: upload of sample-${String(9000 - i).padStart(7, "0")}.safetensors failed: 503 SlowDown (S3 latency ${10 + i} s); retrying`;
    await worker.send({ v: 1, id: randomUUID(), type: "run.event", run, level: "warn", ts: now - i * 30_000, message });
  }
  worker.close();

  await page.goto("/?wall=1");
  await expect(page.getByTestId("wall")).toBeVisible();
  await expect(page.getByTestId("event-repeat").first()).toHaveText("9× over 4m 00s");

  const sizes = await page.getByTestId("wall").evaluate((wall) => {
    const small: string[] = [];
    const walker = document.createTreeWalker(wall, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent?.trim();
      const el = n.parentElement;
      if (!text || !el || el.closest(".sr-only") || el.getClientRects().length === 0) continue;
      const px = Number.parseFloat(getComputedStyle(el).fontSize);
      if (px < 24) small.push(`${px}px "${text.slice(0, 30)}"`);
    }
    const figures = [...wall.querySelectorAll('[data-testid="wall-figure"] > div:first-child')].map((d) => Number.parseFloat(getComputedStyle(d).fontSize));
    return { small: small.slice(0, 5), figures };
  });
  expect(sizes.small).toEqual([]);
  expect(sizes.figures.length).toBe(5);
  for (const px of sizes.figures) expect(px).toBeGreaterThanOrEqual(48);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1920);
});
