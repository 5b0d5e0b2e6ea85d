import { chromium, type FullConfig } from "@playwright/test";

import { approverStorageStatePath, E2E_USERS, signInAs } from "./auth-users";
import { pitwall } from "./support";

/**
 * Runs once after the webServer is up (Playwright starts webServer plugins before global setup):
 * creates the e2e people with the CLI against the run's embedded database, the way an admin
 * would, then signs the approver in through the real /sign-in page and saves that browser state
 * as every spec's default, so specs written before sign-in existed keep working signed in.
 */
export default async function globalSetup(config: FullConfig): Promise<void> {
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
  const use = config.projects[0]!.use;
  const browser = await chromium.launch(use.launchOptions);
  try {
    const context = await browser.newContext({ baseURL: use.baseURL });
    const page = await context.newPage();
    await signInAs(page, E2E_USERS.approver);
    await context.storageState({ path: approverStorageStatePath() });
  } finally {
    await browser.close();
  }
}
