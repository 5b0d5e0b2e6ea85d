import { chromium, type FullConfig, type LaunchOptions } from "@playwright/test";

import { approverStorageStatePath, E2E_USERS, signInAs } from "./auth-users";
import { pitwall } from "./support";

/**
 * Runs once after the webServer is up (Playwright starts webServer plugins before global setup):
 * prepares the e2e people (see `prepareE2ePeople`). Skipped when `npm test` booted and prepared
 * the server ahead of Playwright (PITWALL_E2E_PREPARED=1, scripts/lib/e2e-server.ts).
 */
export default async function globalSetup(config: FullConfig): Promise<void> {
  if (process.env.PITWALL_E2E_PREPARED === "1") return;
  const use = config.projects[0]!.use;
  await prepareE2ePeople(use.baseURL!, use.launchOptions);
}

/**
 * Creates the e2e people with the CLI against the run's embedded database (PITWALL_E2E_DATA_DIR),
 * the way an admin would, then signs the approver in through the real /sign-in page of `baseURL`
 * and saves that browser state as every spec's default, so specs written before sign-in existed
 * keep working signed in.
 * @throws Error when the CLI or the sign-in fails.
 */
export async function prepareE2ePeople(baseURL: string, launchOptions?: LaunchOptions) {
  for (const u of Object.values(E2E_USERS)) {
    pitwall([
      "user",
      "create",
      "--email",
      u.email,
      "--name",
      u.name,
      "--role",
      u.role,
      "--password",
      u.password,
    ]);
  }
  const browser = await chromium.launch(launchOptions);
  try {
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    await signInAs(page, E2E_USERS.approver);
    await context.storageState({ path: approverStorageStatePath() });
  } finally {
    await browser.close();
  }
}
