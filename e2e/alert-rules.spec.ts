import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

// /alerts as an approver: add a rule through the form, see it in the table described in words,
// pause it, and delete it.

test("an approver adds, pauses and deletes an alert rule", async ({ page }) => {
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
  await row.getByRole("button", { name: `Delete ${name}` }).click();
  await expect(row).toHaveCount(0);
});
