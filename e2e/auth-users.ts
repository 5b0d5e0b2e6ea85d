import path from "node:path";
import { expect, type Page } from "@playwright/test";

/**
 * People the e2e global setup creates with `pitwall user create` (e2e/global-setup.ts). The
 * approver's signed-in browser state is every spec's default (playwright.config.ts `storageState`);
 * specs that need someone else sign in with {@link signInAs} or use a fresh context.
 */
export const E2E_USERS = {
  admin: {
    email: "e2e-admin@example.com",
    name: "Eve Admin",
    role: "admin",
    password: "e2e-admin-password",
  },
  approver: {
    email: "e2e-approver@example.com",
    name: "Ava Approver",
    role: "approver",
    password: "e2e-approver-password",
  },
  viewer: {
    email: "e2e-viewer@example.com",
    name: "Vic Viewer",
    role: "viewer",
    password: "e2e-viewer-password",
  },
} as const;

export type E2EUser = (typeof E2E_USERS)[keyof typeof E2E_USERS];

/** Where the approver's signed-in browser state is saved (inside the run's own data folder). */
export function approverStorageStatePath(): string {
  return path.join(process.env.PITWALL_E2E_DATA_DIR!, "approver-storage-state.json");
}

/** Signs in through the real /sign-in form, like a person; waits until the app has loaded. */
export async function signInAs(
  page: Page,
  user:
    | Pick<E2EUser, "email" | "password" | "name">
    | { email: string; password: string; name: string },
  next = "/",
): Promise<void> {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  await expect(page.getByTestId("user-menu")).toContainText(user.name);
}

/**
 * Opens the top bar's user menu, clicking again when a click landed before the page was hydrated
 * (React drops it; seen once in a clean-clone CI run).
 */
export async function openUserMenu(page: Page): Promise<void> {
  const menu = page.getByTestId("user-menu");
  await expect(async () => {
    if ((await menu.getAttribute("aria-expanded")) !== "true") await menu.click();
    await expect(menu).toHaveAttribute("aria-expanded", "true", { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}
