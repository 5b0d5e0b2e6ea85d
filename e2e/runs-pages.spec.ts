import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// The run list's total count and page numbers, and tags beside names below 1536 px, over 55 runs
// of one tag pushed through /ws/ingest (the shared database holds other specs' runs too: every
// read filters by this tag).

test("the run list shows the total, numbered pages that keep the filters, and tags below 1536 px", async ({
  page,
  baseURL,
}) => {
  const tag = `pages-${randomUUID().slice(0, 8)}`;
  const worker = await connectWorker(baseURL!, createToken("e2e-run-pages"));
  for (let i = 1; i <= 55; i++) {
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run: `${tag}-${i}`,
      name: `Paged run ${String(i).padStart(2, "0")} ${tag}`,
      kind: "benchmark",
      tags: [tag, "second-tag"],
      config: { model: "a-rather-long-organisation/a-very-long-model-name-that-would-eat-the-row" },
    });
  }
  worker.close();

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/runs?tag=${tag}`);
  await expect(page.getByTestId("runs-total")).toHaveText("55 runs · page 1 of 2");
  const pager = page.getByTestId("run-pages");
  await expect(pager.getByRole("link", { name: "Page 1" })).toHaveAttribute("aria-current", "page");
  // Names keep their room beside a long model id, and its tags show on a line of their own under it.
  const row = page.getByRole("row").filter({ hasText: `Paged run 55 ${tag}` });
  await expect(row.getByTestId("run-row-tags")).toBeVisible();
  await expect(row.getByTestId("run-row-tags")).toContainText(tag);
  await expect(row.getByTestId("run-row-tags")).toContainText("second-tag");
  const link = row.getByRole("link", { name: `Paged run 55 ${tag}` });
  const fits = await link.evaluate((el) => el.scrollWidth <= el.clientWidth);
  expect(fits, "the run's name is not cut at 1280 px").toBe(true);

  await pager.getByRole("link", { name: "Page 2" }).click();
  await expect(page).toHaveURL(new RegExp(`/runs\\?tag=${tag}&page=2$`));
  await expect(page.getByTestId("runs-total")).toHaveText("55 runs · page 2 of 2");
  // Newest first: page 2 holds the 5 oldest.
  await expect(page.getByRole("link", { name: /^Paged run \d\d / })).toHaveCount(5);
  await expect(page.getByRole("link", { name: `Paged run 01 ${tag}` })).toBeVisible();
  await page.getByRole("link", { name: "Newer runs (previous page)" }).click();
  await expect(page.getByTestId("runs-total")).toHaveText("55 runs · page 1 of 2");

  const api = (await (await page.request.get(`/api/runs?tag=${tag}&page=2`)).json()) as {
    total: number;
    page: number;
    runs: unknown[];
  };
  expect(api).toMatchObject({ total: 55, page: 2 });
  expect(api.runs).toHaveLength(5);
});
