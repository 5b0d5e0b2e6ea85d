import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// /alerts as an approver: add a rule through the form, see it in the table described in words,
// pause it, edit it, and delete it.

test("an approver adds, pauses, edits and deletes an alert rule", async ({ page }) => {
  const name = `loss NaN ${randomUUID().slice(0, 6)}`;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/alerts");
  const form = page.getByRole("form", { name: "Add an alert rule" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Metric").fill("loss");
  await form.getByLabel("Condition").selectOption("nan");
  await form.getByLabel("For", { exact: true }).fill("3");
  await form.getByRole("button", { name: "Add rule" }).click();
  const row = page
    .getByRole("table", { name: "Alert rules" })
    .getByRole("row", { name: new RegExp(name) });
  await expect(row).toContainText("loss is NaN/Inf for 3 steps");
  await expect(row).toContainText("training");
  await row.getByRole("button", { name: "Pause" }).click();
  await expect(row).toContainText("(paused)");
  // Edit: the form holds the rule's settings; saved, the row says the new condition and stays paused.
  await row.getByRole("button", { name: `Edit ${name}` }).click();
  const edit = page.getByRole("form", { name: "Edit the alert rule" });
  await expect(edit.getByLabel("Metric")).toHaveValue("loss");
  await expect(edit.getByLabel("For", { exact: true })).toHaveValue("3");
  await edit.getByLabel("Condition").selectOption("above");
  await edit.getByLabel("Threshold").fill("4.5");
  await edit.getByLabel("For", { exact: true }).fill("5");
  await edit.getByRole("button", { name: "Save rule" }).click();
  await expect(row).toContainText("loss above 4.5 for 5 steps");
  await expect(row).toContainText("(paused)");
  await expect(page.getByRole("form", { name: "Add an alert rule" })).toBeVisible();
  await row.getByRole("button", { name: `Delete ${name}` }).click();
  await expect(row).toHaveCount(0);
});

test("a firing rule is named by its name on the overview, not by its number", async ({
  page,
  baseURL,
}) => {
  const tag = `e2e-nan-${randomUUID().slice(0, 6)}`;
  const name = `Drafter loss is NaN on run ${tag}`;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/alerts");
  const form = page.getByRole("form", { name: "Add an alert rule" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Metric").fill("loss");
  await form.getByLabel("Condition").selectOption("nan");
  await form.getByLabel("For", { exact: true }).fill("2");
  await form.getByLabel("Tag (optional)").fill(tag);
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(page.getByRole("row", { name: new RegExp(name) })).toBeVisible();

  const worker = await connectWorker(baseURL!, createToken(`alerts-${tag}`));
  const run = `train-${tag}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `pretrain ${tag}`,
    kind: "training",
    tags: [tag],
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.metrics",
    run,
    points: [
      { key: "loss", step: 1, value: "NaN" },
      { key: "loss", step: 2, value: "NaN" },
    ],
  });
  worker.close();
  // The rule fires within its evaluation tick; the overview's alert banner names it.
  await expect(async () => {
    await page.goto("/");
    await expect(page.getByRole("alert").filter({ hasText: `pretrain ${tag}` })).toContainText(
      `Alert “${name}”`,
      { timeout: 3_000 },
    );
  }).toPass({ timeout: 30_000 });

  // At 390 px (overview and wall) the line reads as text, a long rule name wrapping word by word.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ["/", "/?wall=1"]) {
    await page.goto(path);
    const line = page
      .getByRole("alert")
      .locator("div")
      .filter({ hasText: `pretrain ${tag}` })
      .last();
    const tops = await line.evaluate((row) => {
      const top = (e: Element | null, last = false) => {
        const rects = e ? [...e.getClientRects()] : [];
        return (last ? rects[rects.length - 1] : rects[0])?.top ?? Number.NaN;
      };
      const word = row.querySelector('[data-testid="alert-in"]');
      return {
        word: top(word),
        title: top(word?.previousElementSibling ?? null, true),
        name: top(row.querySelector("a")),
      };
    });
    // Running text: "in" ends the title's last line or starts the name's first (not a line alone).
    expect(
      Math.min(Math.abs(tops.word - tops.title), Math.abs(tops.word - tops.name)),
      `${path}: "in" alone on a line (${JSON.stringify(tops)})`,
    ).toBeLessThan(4);
  }
});
