import { chromium, type Browser, type Page } from "@playwright/test";

import { chromiumLaunchOptions } from "./chromium";

/** A real Chromium page signed in as one person (for vitest tests that click like a person). */
export interface SignedInBrowser {
  page: Page;
  close(): Promise<void>;
}

/**
 * Launches Chromium (see chromium.ts) with a context that carries `cookie` (the
 * `pitwall.session_token=…` pair from test/support/people.ts `signIn`) for `serverUrl`, and
 * opens one page on it (waits and actions time out after 60 s).
 */
export async function openSignedInPage(
  serverUrl: string,
  cookie: string,
): Promise<SignedInBrowser> {
  const browser: Browser = await chromium.launch(chromiumLaunchOptions);
  const eq = cookie.indexOf("=");
  const context = await browser.newContext({ baseURL: serverUrl });
  await context.addCookies([
    { name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: serverUrl },
  ]);
  const page = await context.newPage();
  // A page on a busy CI machine can take well over Playwright's default 30 s to render live data.
  page.setDefaultTimeout(60_000);
  return { page, close: () => browser.close() };
}
