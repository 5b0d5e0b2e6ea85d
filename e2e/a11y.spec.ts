import { test } from "@playwright/test";

import { expectNoSeriousA11yFindings } from "./a11y-check";
import { seedEveryPage } from "./every-page";

// axe-core on every page at 390 px (phone) and 1440 px (laptop), light theme: no serious or
// critical WCAG 2.1 A/AA finding. Dark: e2e/a11y-dark.slow.spec.ts (the `slow` project).

test.describe.configure({ mode: "serial" });
let paths: string[] = [];

test.beforeAll(async ({ baseURL, request }) => {
  paths = (await seedEveryPage(baseURL!, request, "a11y")).paths;
});

for (const width of [390, 1440]) {
  test(`every page passes axe at ${width} px in light`, async ({ page }) => {
    // 18 pages, each analysed by axe: minutes on a loaded 2-core machine.
    test.setTimeout(600_000);
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });
    for (const path of paths) await expectNoSeriousA11yFindings(page, path, `${width} px light`);
  });
}
