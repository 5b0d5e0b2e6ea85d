import { test } from "@playwright/test";

import { expectNoSeriousA11yFindings } from "./a11y-check";
import { seedEveryPage } from "./every-page";

// The dark theme of e2e/a11y.spec.ts: axe-core on every page at 390 and 1440 px, failing on any
// serious or critical finding. In the `slow` project (playwright.config.ts).

test.describe.configure({ mode: "serial" });
let paths: string[] = [];

test.beforeAll(async ({ baseURL, request }) => {
  paths = (await seedEveryPage(baseURL!, request, "a11y-dark")).paths;
});

for (const width of [390, 1440]) {
  test(`every page passes axe at ${width} px in dark`, async ({ page }) => {
    test.setTimeout(600_000);
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: "dark" });
    for (const path of paths) await expectNoSeriousA11yFindings(page, path, `${width} px dark`);
  });
}
