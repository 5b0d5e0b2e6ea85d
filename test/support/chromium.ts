import fs from "node:fs";

/**
 * How the tests launch Chromium, shared by playwright.config.ts and the vitest integration tests
 * that drive a browser themselves: Debian's `/usr/bin/chromium` when present (or
 * `$PITWALL_CHROMIUM`), else Playwright's bundled browser; flags that keep it offline and quiet.
 */
export const chromiumLaunchOptions = {
  executablePath:
    process.env.PITWALL_CHROMIUM ??
    (fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined),
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};
