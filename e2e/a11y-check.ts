import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** The WCAG 2.1 A/AA rule sets axe checks. */
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * Visits `path` and runs axe-core on it; fails (softly, so one run lists every page) on any
 * serious or critical finding, naming the rule and the first elements it hit, and on any uncaught
 * error in the page while it loads (a hydration mismatch is React's error #418).
 */
export async function expectNoSeriousA11yFindings(
  page: Page,
  path: string,
  where: string,
): Promise<void> {
  const errors: string[] = [];
  const onError = (e: Error) => errors.push(e.message.slice(0, 300));
  page.on("pageerror", onError);
  try {
    await page.goto(path);
    await expect(page.locator("main, [data-wall]").first()).toBeVisible();
    await page.waitForLoadState("networkidle");
  } finally {
    page.off("pageerror", onError);
  }
  expect.soft(errors, `${where} ${path}: errors in the page`).toEqual([]);
  const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const bad = result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}, ${v.nodes.length}×): ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(" "))
          .join(" | ")}`,
    );
  expect.soft(bad, `${where} ${path}: axe serious/critical findings`).toEqual([]);
}
