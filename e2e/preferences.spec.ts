import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { E2E_USERS, openUserMenu, signInAs } from "./auth-users";
import { connectWorker, createToken } from "./support";

// Display choices stored per person on the server (issue 25, deliverable 8): the theme is
// rendered on <html> by the server, so a reload paints dark at once, and every absolute time
// follows the chosen zone. Runs as the viewer in a fresh context (the approver's shared state
// stays untouched) and puts the viewer's choices back at the end.

test.describe.configure({ mode: "serial" });

test("dark survives a reload, painted by the server; a chosen zone shows a known start time in that zone", async ({
  browser,
  baseURL,
}) => {
  const token = createToken("e2e-prefs-host");
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-prefs-${randomUUID().slice(0, 8)}`;
  // 2026-01-15 12:00:00 UTC = 21:00:00 in Tokyo (GMT+9, no daylight saving).
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: `Prefs ${run.slice(-8)}`,
    kind: "generation",
    startedAt: Date.UTC(2026, 0, 15, 12, 0, 0),
  });
  worker.close();

  const context = await browser.newContext({
    storageState: undefined,
    colorScheme: "light",
    timezoneId: "Europe/London",
  });
  const page = await context.newPage();
  try {
    await signInAs(page, E2E_USERS.viewer);
    const html = page.locator("html");
    await expect(html).toHaveAttribute("data-theme", "system");
    const lightBg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(lightBg).toBe("rgb(246, 247, 249)");

    await openUserMenu(page);
    const saved = page.waitForResponse(
      (r) => r.url().endsWith("/api/me/preferences") && r.request().method() === "PUT",
    );
    await page.getByRole("radio", { name: "Dark" }).click();
    expect((await saved).status()).toBe(200);
    await expect(html).toHaveAttribute("data-theme", "dark");
    await expect
      .poll(() => page.evaluate(() => getComputedStyle(document.body).backgroundColor))
      .toBe("rgb(13, 15, 19)");

    // The first HTML the server sends already says dark (no flash waiting for JavaScript).
    const raw = await (await page.request.get("/")).text();
    expect(raw).toMatch(/<html[^>]*data-theme="dark"/);
    await page.reload();
    await expect(html).toHaveAttribute("data-theme", "dark");
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      "rgb(13, 15, 19)",
    );
    await expect(page.getByRole("radio", { name: "Dark" })).toHaveCount(0); // menu closed after reload

    // The run's start time: browser zone (London = UTC in January) first, then Tokyo once chosen.
    const runs = (await (await page.request.get(`/api/runs?q=${run}`)).json()) as {
      runs: Array<{ id: number }>;
    };
    await page.goto(`/runs/${runs.runs[0]!.id}`);
    const started = page.locator('time[datetime="2026-01-15T12:00:00.000Z"]').first();
    await expect(started).toHaveAttribute("title", "2026-01-15 12:00:00 GMT");
    await openUserMenu(page);
    const zoneSaved = page.waitForResponse(
      (r) => r.url().endsWith("/api/me/preferences") && r.request().method() === "PUT",
    );
    await page.getByTestId("time-zone-select").selectOption("Asia/Tokyo");
    expect((await zoneSaved).status()).toBe(200);
    await expect(started).toHaveAttribute("title", "2026-01-15 21:00:00 GMT+9");
    await page.reload();
    // Stored on the server: the server render itself uses the zone.
    await expect(started).toHaveAttribute("title", "2026-01-15 21:00:00 GMT+9");
    const stored = await (await page.request.get("/api/me/preferences")).json();
    expect(stored).toEqual({ theme: "dark", timeZone: "Asia/Tokyo" });
    const bad = await page.request.put("/api/me/preferences", {
      data: { timeZone: "Mars/Olympus" },
      headers: { origin: baseURL! },
    });
    expect(bad.status()).toBe(400);
  } finally {
    await page.request.put("/api/me/preferences", {
      data: { theme: "system", timeZone: null },
      headers: { origin: baseURL! },
    });
    await context.close();
  }
});
