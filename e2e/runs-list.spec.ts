import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// The run list as a person uses it: sort by a column (URL and aria-sort follow), fold the repeats
// of one sweep into a row that expands, save the view under a name and open it again from its
// chip. Seeded through /ws/ingest like a worker.

test.describe.configure({ mode: "serial" });

test("sorts by a column, groups a sweep's repeats, saves a view and reopens it", async ({
  page,
  baseURL,
}) => {
  const tag = `list-${randomUUID().slice(0, 8)}`;
  const sweep = `${tag}-mtp`;
  const worker = await connectWorker(baseURL!, createToken(`${tag}-host`));
  const t0 = Date.now() - 3_600_000;
  const runs = [
    { name: `${tag} zeta solo`, peak: 500, startS: 0 },
    { name: `${tag} sweep #1`, peak: 1100, startS: 60, sweep },
    { name: `${tag} sweep #2`, peak: 1900, startS: 120, sweep },
    { name: `${tag} alpha solo`, peak: 800, startS: 180 },
  ];
  for (const r of runs) {
    const run = `${tag}-${r.startS}`;
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.start",
      run,
      name: r.name,
      kind: "benchmark",
      startedAt: t0 + r.startS * 1000,
      tags: [tag],
      config: r.sweep ? { sweep: r.sweep } : {},
    });
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.benchmark",
      run,
      points: [{ key: "c8", concurrency: 8, completed: 10, outputTokPerS: r.peak }],
    });
    await worker.send({
      v: 1,
      id: randomUUID(),
      type: "run.end",
      run,
      status: "succeeded",
      endedAt: t0 + (r.startS + 30) * 1000,
    });
  }
  worker.close();

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs?tag=${tag}`);
  const table = page.getByRole("region", { name: "Runs" }).getByRole("table");
  const names = () => table.getByRole("link", { name: new RegExp(`^${tag} `) }).allTextContents();

  // Grouped by default: the two sweep runs are one collapsed row saying how many and the best figure.
  const group = table.getByRole("button", { name: new RegExp(sweep) });
  await expect(group).toHaveAttribute("aria-expanded", "false");
  await expect(group).toContainText("2 runs");
  // The column header names the unit (tok/s); the cell is the bare figure (issue 25).
  await expect(table.getByRole("link", { name: "best 1,900" })).toBeVisible();
  await expect.poll(names).toEqual([`${tag} alpha solo`, `${tag} zeta solo`]);
  await group.click();
  await expect(group).toHaveAttribute("aria-expanded", "true");
  await expect
    .poll(names)
    .toEqual([`${tag} alpha solo`, `${tag} sweep #2`, `${tag} sweep #1`, `${tag} zeta solo`]);

  // Sort by name: the header's button, the URL and aria-sort agree; again flips the direction.
  const nameHeader = table.getByRole("columnheader", { name: /Name/ });
  await nameHeader.getByRole("button").click();
  await expect(page).toHaveURL(/sort=name&dir=asc/);
  await expect(nameHeader).toHaveAttribute("aria-sort", "ascending");
  await expect(table.getByRole("columnheader", { name: /Started/ })).toHaveAttribute(
    "aria-sort",
    "none",
  );
  await nameHeader.getByRole("button").click();
  await expect(page).toHaveURL(/sort=name&dir=desc/);
  await expect(nameHeader).toHaveAttribute("aria-sort", "descending");
  // The opened group stays open; it sits at its first member's place in the new order.
  await expect
    .poll(names)
    .toEqual([`${tag} zeta solo`, `${tag} sweep #2`, `${tag} sweep #1`, `${tag} alpha solo`]);

  // Without grouping, every run stands alone in the chosen order.
  await page.getByLabel("Group", { exact: true }).selectOption("off");
  await expect(page).toHaveURL(/group=off/);
  await expect(page.getByLabel("Group", { exact: true })).toHaveValue("off");
  await expect(group).toHaveCount(0);
  await expect
    .poll(names)
    .toEqual([`${tag} zeta solo`, `${tag} sweep #2`, `${tag} sweep #1`, `${tag} alpha solo`]);

  // Save this view, leave, reopen it from its chip.
  await page.getByRole("button", { name: "Save view" }).click();
  await page.getByLabel("Name of the new view").fill(`${tag} by name`);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const chip = page.getByRole("link", { name: `${tag} by name` });
  await expect(chip).toHaveAttribute("aria-current", "page");
  await page.goto("/runs");
  await page.getByRole("link", { name: `${tag} by name` }).click();
  await expect(page).toHaveURL(new RegExp(`tag=${tag}.*sort=name&dir=desc&group=off`));
  await expect
    .poll(names)
    .toEqual([`${tag} zeta solo`, `${tag} sweep #2`, `${tag} sweep #1`, `${tag} alpha solo`]);

  // Rename it, then delete it.
  await page.getByRole("button", { name: `Rename view ${tag} by name` }).click();
  await page.getByLabel(`New name for ${tag} by name`).fill(`${tag} Z first`);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByRole("link", { name: `${tag} Z first` })).toBeVisible();
  await page.getByRole("button", { name: `Delete view ${tag} Z first` }).click();
  await expect(page.getByRole("link", { name: `${tag} Z first` })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Save view" })).toBeVisible();
});

test("on a phone the stacked cards sort with a select", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/runs");
  const select = page.getByLabel("Sort");
  await select.selectOption({ label: "Name · A–Z" });
  await expect(page).toHaveURL(/sort=name&dir=asc/);
  await expect(select).toHaveValue("name:asc");
});
