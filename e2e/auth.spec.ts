import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { E2E_USERS, openUserMenu, signInAs } from "./auth-users";
import { connectWorker, createToken } from "./support";

// People and roles as the team meets them: sign-in sends you back where you were going, the app
// bar says who you are, sign-out ends the session, a viewer can read a plan but not decide it
// (no buttons, and the API refuses), and an admin adds people and worker tokens. The approver is
// signed in by default (global setup); these tests start signed out unless they say otherwise.
// A fresh install's first-visit /setup is covered by lib/server/auth/auth.int.test.ts (this server
// already has users).

test.describe.configure({ mode: "serial" });
test.use({ storageState: { cookies: [], origins: [] } });

let token: string;

test.beforeAll(() => {
  token = createToken("e2e-auth-host");
});

test("signing in returns you to the page you asked for; sign out ends the session", async ({
  page,
}) => {
  await page.goto("/hosts");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fhosts$/);
  await expect(page.getByRole("heading", { name: "Sign in to Pitwall" })).toBeVisible();

  await page.getByLabel("Email").fill(E2E_USERS.viewer.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong" })).toHaveText(
    "Wrong email or password.",
  );

  await page.getByLabel("Password").fill(E2E_USERS.viewer.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/hosts$/);
  const menu = page.getByTestId("user-menu");
  await expect(menu).toContainText(E2E_USERS.viewer.name);
  await expect(menu).toContainText("viewer");

  await openUserMenu(page);
  await expect(page.getByRole("menuitem", { name: "Admin" })).toHaveCount(0);
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/runs");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fruns$/);
  expect((await page.request.get("/api/runs")).status()).toBe(401);
});

test("a viewer sees a plan without decision buttons and the API answers 403; an approver gets the buttons", async ({
  page,
  browser,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const title = `Auth e2e plan ${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "plan.propose",
    plan: `auth-e2e-${randomUUID()}`,
    title,
    items: [{ content: "upload the shards", priority: "high" }],
  });
  worker.close();
  // Worker tokens may read the API too.
  const list = await page.request.get("/api/plans", {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(list.status()).toBe(200);
  const plan = ((await list.json()) as { plans: Array<{ id: number; title: string }> }).plans.find(
    (p) => p.title === title,
  )!;

  await signInAs(page, E2E_USERS.viewer, `/plans/${plan.id}`);
  await expect(page.getByText(title).first()).toBeVisible();
  await expect(
    page.getByRole("button", { name: /^(Approve|Approve with edits|Request changes|Reject)$/ }),
  ).toHaveCount(0);
  const res = await page.request.post(`/api/plans/by-id/${plan.id}/decision`, {
    data: { decision: "approved" },
    headers: { origin: baseURL! },
  });
  expect(res.status()).toBe(403);

  // The approver's saved state (global setup) sees the actions on the same plan.
  const approver = await browser.newContext({ storageState: test.info().project.use.storageState });
  const approverPage = await approver.newPage();
  await approverPage.goto(`/plans/${plan.id}`);
  await expect(approverPage.getByTestId("user-menu")).toContainText(E2E_USERS.approver.name);
  await expect(approverPage.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  // …and may decide it (which also leaves no pending plan behind for later specs).
  const decided = await approverPage.request.post(`/api/plans/by-id/${plan.id}/decision`, {
    data: { decision: "rejected" },
    headers: { origin: baseURL! },
  });
  expect(decided.status()).toBe(200);
  await approver.close();
});

test("an admin adds a person (password shown once) and a worker token that works until revoked", async ({
  page,
  browser,
  baseURL,
}) => {
  await signInAs(page, E2E_USERS.admin);
  await openUserMenu(page);
  await page.getByRole("menuitem", { name: "Admin" }).click();
  await expect(page).toHaveURL(/\/admin$/);

  const email = `new-${randomUUID().slice(0, 8)}@example.com`;
  const addForm = page.getByRole("form", { name: "Add a person" });
  await addForm.getByLabel("Name").fill("Nia New");
  await addForm.getByLabel("Email").fill(email);
  await addForm.getByLabel("Role").selectOption("approver");
  await addForm.getByRole("button", { name: "Add person" }).click();
  const password = (await page.getByTestId("secret-once").textContent())!.trim();
  expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
  await expect(page.getByTestId(`user-row-${email}`)).toContainText("Nia New");

  const fresh = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const newcomer = await fresh.newPage();
  await signInAs(newcomer, { email, password, name: "Nia New" });
  await fresh.close();
  await page.getByRole("button", { name: "Done" }).click();

  const tokenForm = page.getByRole("form", { name: "Create a worker token" });
  await tokenForm.getByLabel("Host").fill("e2e-admin-box");
  await tokenForm.getByRole("button", { name: "Create token" }).click();
  const secret = (await page.getByTestId("secret-once").textContent())!.trim();
  expect(secret).toMatch(/^pw_/);
  const read = (t: string) =>
    fetch(`${baseURL}/api/runs`, { headers: { authorization: `Bearer ${t}` } }).then(
      (r) => r.status,
    );
  expect(await read(secret)).toBe(200);

  page.once("dialog", (d) => void d.accept());
  const row = page.getByRole("row").filter({ hasText: "e2e-admin-box" });
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row).toContainText("revoked");
  expect(await read(secret)).toBe(401);
});

test("people without the admin role get a plain refusal on /admin and 403 from its API", async ({
  page,
}) => {
  await signInAs(page, E2E_USERS.viewer, "/admin");
  await expect(page.getByRole("heading", { name: "Admins only" })).toBeVisible();
  expect((await page.request.get("/api/admin/users")).status()).toBe(403);
});

test("an approver renames, tags and archives a run; a viewer gets no edit buttons and the API answers 403", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const key = `edit-e2e-${randomUUID().slice(0, 8)}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run: key,
    name: "sweep as the worker named it",
    kind: "benchmark",
    tags: ["auto"],
  });
  worker.close();
  const listed = (await (
    await page.request.get("/api/runs?q=" + key, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { runs: Array<{ id: number }> };
  const runId = listed.runs[0]!.id;

  await signInAs(page, E2E_USERS.viewer, `/runs/${runId}`);
  await expect(page.getByRole("heading", { name: "sweep as the worker named it" })).toBeVisible();
  await expect(page.getByRole("button", { name: /^(Edit|Archive)$/ })).toHaveCount(0);
  const refused = await page.request.patch(`/api/runs/${runId}`, {
    data: { archived: true },
    headers: { origin: baseURL! },
  });
  expect(refused.status()).toBe(403);

  await signInAs(page, E2E_USERS.approver, `/runs/${runId}`);
  await page.getByRole("button", { name: "Edit" }).click();
  await page.getByLabel("Name").fill("TP8 baseline, MTP off");
  await page.getByLabel(/^Tags/).fill("tp8, baseline");
  await page.getByLabel("Notes").fill("Reference for the EP8 comparison.");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("heading", { name: "TP8 baseline, MTP off" })).toBeVisible();
  await expect(page.getByText("Reference for the EP8 comparison.")).toBeVisible();
  await expect(page.getByText(`by ${E2E_USERS.approver.email}`)).toBeVisible();

  await page.getByRole("button", { name: "Archive" }).click();
  await expect(page.getByText("archived", { exact: true })).toBeVisible();
  await page.goto("/runs");
  await expect(page.getByRole("link", { name: "TP8 baseline, MTP off" })).toHaveCount(0);
  await page.getByLabel("Archived runs").selectOption("only");
  await expect(page).toHaveURL(/archived=only/);
  await expect(page.getByRole("link", { name: "TP8 baseline, MTP off" })).toBeVisible();
});

test("a page left open is sent to sign-in when its session ends elsewhere, and comes back after signing in", async ({
  page,
}) => {
  await signInAs(page, E2E_USERS.viewer, "/hosts");
  await expect(page.getByRole("status", { name: /Connected/ })).toBeVisible();
  // Sign out with the same session from outside the page (another tab, an admin disabling the account…).
  const cookie = (await page.context().cookies()).find((c) => c.name === "pitwall.session_token")!;
  const res = await fetch(new URL("/api/auth/sign-out", page.url()), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      cookie: `${cookie.name}=${cookie.value}`,
      origin: new URL(page.url()).origin,
    },
    body: "{}",
  });
  expect(res.status).toBe(200);
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fhosts$/, { timeout: 15_000 });
  await page.getByLabel("Email").fill(E2E_USERS.viewer.email);
  await page.getByLabel("Password").fill(E2E_USERS.viewer.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/hosts$/);
});
