import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

import { chromiumLaunchOptions } from "./test/support/chromium";

// One fresh embedded database and port per run. The config is evaluated by the runner and again
// by each worker; setting the values into process.env here makes workers (spawned later, with
// this environment) agree with the runner.
process.env.PITWALL_E2E_PORT ??= String(20_000 + Math.floor(Math.random() * 20_000));
process.env.PITWALL_E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-e2e-"));
const port = Number(process.env.PITWALL_E2E_PORT);

export default defineConfig({
  testDir: "e2e",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: !!process.env.CI,
  // Creates the e2e people and signs the approver in (after webServer is up); see e2e/global-setup.ts.
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    // Every spec starts signed in as the approver (E2E_USERS in e2e/auth-users.ts).
    storageState: path.join(process.env.PITWALL_E2E_DATA_DIR, "approver-storage-state.json"),
    trace: "retain-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
  // The fresh-install spec needs an empty database: it runs first, every other spec after it.
  // `*.slow.spec.ts` files form the `slow` project, so `--project=app` leaves them out.
  projects: [
    { name: "fresh-install", testMatch: /fresh-install\.spec\.ts$/ },
    {
      name: "app",
      testIgnore: [/fresh-install\.spec\.ts$/, /\.slow\.spec\.ts$/],
      dependencies: ["fresh-install"],
    },
    // Long checks (axe on every page in dark): `npx playwright test --project=slow`; `npm test` runs them too.
    { name: "slow", testMatch: /\.slow\.spec\.ts$/, dependencies: ["fresh-install"] },
  ],
  webServer: {
    command: "node_modules/.bin/tsx scripts/start.ts",
    url: `http://127.0.0.1:${port}/healthz`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    // Live sockets re-check their session every 2 s here (60 s by default), so sign-out elsewhere shows quickly.
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      PITWALL_DATA_DIR: process.env.PITWALL_E2E_DATA_DIR,
      DATABASE_URL: "",
      PITWALL_LIVE_RECHECK_S: "2",
    },
  },
});
