import { expect, test } from "@playwright/test";

// What a newcomer sees before any data exists. This file runs as its own Playwright project
// before every other spec (playwright.config.ts), since every other spec pushes runs.

test("a fresh install shows the exact commands to get data in", async ({ page }) => {
  await page.goto("/runs");
  await expect(page.getByRole("heading", { name: "No runs yet" })).toBeVisible();
  await expect(page.getByText("npx pitwall token create", { exact: false }).first()).toBeVisible();
  await expect(page.getByText("npx pitwall import", { exact: false }).first()).toBeVisible();
});
