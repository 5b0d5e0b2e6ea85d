import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

import { e2eServerEnv } from "./scripts/lib/e2e-server";
import { chromiumLaunchOptions } from "./test/support/chromium";

// One fresh embedded database and port per run. The config is evaluated by the runner and again
// by each worker; setting the values into process.env here makes workers (spawned later, with
// this environment) agree with the runner.
process.env.PITWALL_E2E_PORT ??= String(20_000 + Math.floor(Math.random() * 20_000));
process.env.PITWALL_E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-e2e-"));
const port = Number(process.env.PITWALL_E2E_PORT);

// Specs named before the *.slow.spec.ts convention that need over 30 s alone (axe on every page:
// 120-140 s per width at load 12, 2026-12-06); they belong to the `slow` project.
const SLOW_SPECS = [/\/a11y\.spec\.ts$/];

// Specs that read state global to the database run apart from the others: daily-use asserts that
// no all-prompts baseline crosses its τ chart (baselines are global; evals' would), so it runs
// before the rest (project app-first); wall asserts that its own eight events are the newest and
// pages through every active run, so it runs after the rest (app-last). One worker (the default)
// runs the projects of a phase in this order, so no dependency between them is needed (a failed
// dependency would skip every test after it). Two workers (PITWALL_E2E_WORKERS=2, not the default:
// docs/testing.md, 2026-12-06) share the one server and database, so the order is then made
// by dependencies: app-first, then app (every spec of it reads only its own data), then app-last.
const FIRST_SPECS = [/\/daily-use\.spec\.ts$/];
const LAST_SPECS = [/\/wall\.spec\.ts$/];
const workers = Number(process.env.PITWALL_E2E_WORKERS ?? 1);
const staged = workers > 1;

export default defineConfig({
  testDir: "e2e",
  workers,
  fullyParallel: false,
  retries: 0,
  // Two workers share the two cores with the server and two Chromiums: waits get more room.
  timeout: staged ? 90_000 : 60_000,
  expect: { timeout: staged ? 15_000 : 10_000 },
  forbidOnly: !!process.env.CI,
  // Creates the e2e people and signs the approver in (after webServer is up); see e2e/global-setup.ts.
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    // Every spec starts signed in as the approver (E2E_USERS in e2e/auth-users.ts).
    storageState: path.join(process.env.PITWALL_E2E_DATA_DIR, "approver-storage-state.json"),
    // Traces cost a third of the e2e stage's time even when thrown away (retain-on-failure
    // records every action of every test: 380 -> 253 s for the 95 tests on two workers,
    // docs/testing.md, 2026-12-06). Off by default; PITWALL_E2E_TRACE=1 records them again
    // (kept for failed tests) when a failure needs one. A failed test keeps its screenshot.
    trace: process.env.PITWALL_E2E_TRACE === "1" ? "retain-on-failure" : "off",
    screenshot: "only-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
  // The fresh-install spec needs an empty database: it runs first, every other spec after it.
  // `*.slow.spec.ts` files, and older specs that need over 30 s alone (SLOW_SPECS), form the
  // `slow` project, so `--project=app` leaves them out; `npm test` runs them in its slow stage.
  projects: [
    { name: "fresh-install", testMatch: /fresh-install\.spec\.ts$/ },
    { name: "app-first", testMatch: FIRST_SPECS, dependencies: ["fresh-install"] },
    {
      name: "app",
      testIgnore: [
        /fresh-install\.spec\.ts$/,
        /\.slow\.spec\.ts$/,
        ...SLOW_SPECS,
        ...FIRST_SPECS,
        ...LAST_SPECS,
      ],
      dependencies: [staged ? "app-first" : "fresh-install"],
    },
    {
      name: "app-last",
      testMatch: LAST_SPECS,
      workers: 1,
      dependencies: [staged ? "app" : "fresh-install"],
    },
    // Long checks (axe on every page, light and dark): `npx playwright test --project=slow`.
    {
      name: "slow",
      testMatch: [/\.slow\.spec\.ts$/, ...SLOW_SPECS],
      dependencies: ["fresh-install"],
    },
  ],
  webServer: {
    command: "node_modules/.bin/tsx scripts/start.ts",
    url: `http://127.0.0.1:${port}/healthz`,
    timeout: 180_000,
    // `npm test` boots the e2e server while the integration stage runs (scripts/lib/e2e-server.ts)
    // and says so with PITWALL_E2E_REUSE_SERVER=1 (with its port and data dir); it stops it after.
    reuseExistingServer: process.env.PITWALL_E2E_REUSE_SERVER === "1",
    stdout: "ignore",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    env: e2eServerEnv(port, process.env.PITWALL_E2E_DATA_DIR),
  },
});
