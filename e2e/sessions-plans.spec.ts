import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";

import { fixturePath } from "../test/support/fixtures";
import { connectWorker, createToken, pitwall } from "./support";

// Agent sessions and plans, as the team uses them, against the real server on a fresh embedded
// database seeded only through the public paths (CLI import, /ws/ingest, POST /api/ingest, the
// CLI's plan propose); people are made with `pitwall user create` and sign in at /sign-in. The
// navigation is not wired yet (components/nav belongs to another change), so the live
// pending-plans count is asserted on the /plans page header, which shows the same badge.

const claudeFile = fixturePath(
  "claude-code-transcript",
  "claude-code-log_todowrite_examples_v1.0.24.jsonl",
);
const projectDir = path.resolve(import.meta.dirname, "..");

test.describe.configure({ mode: "serial" });

let token: string;
const PASSWORD = "e2e-password-1234";
const people = { ada: "ada@example.com", bob: "bob@example.com", val: "val@example.com" } as const;

test.beforeAll(() => {
  token = createToken("e2e-agent");
  pitwall([
    "user",
    "create",
    "--email",
    people.ada,
    "--name",
    "Ada Approver",
    "--role",
    "approver",
    "--password",
    PASSWORD,
  ]);
  pitwall([
    "user",
    "create",
    "--email",
    people.bob,
    "--name",
    "Bob Builder",
    "--role",
    "approver",
    "--password",
    PASSWORD,
  ]);
  pitwall([
    "user",
    "create",
    "--email",
    people.val,
    "--name",
    "Val Viewer",
    "--role",
    "viewer",
    "--password",
    PASSWORD,
  ]);
});

/** Signs in through the /sign-in form, like a person. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
}

test("an imported Claude Code session lists with its progress; its page shows the timeline and item statuses", async ({
  page,
  baseURL,
}) => {
  const out = pitwall(["import", claudeFile], { PITWALL_URL: baseURL!, PITWALL_TOKEN: token });
  expect(out).toContain("3 todo snapshots");

  await signIn(page, people.ada);
  await page.goto("/sessions");
  const row = page.getByRole("row", { name: /Feature Implementation with Task Management/ });
  await expect(row).toContainText("Claude Code");
  await expect(row).toContainText("2/6");
  await expect(row).toContainText("Imported");
  await expect(row).toContainText("Add comprehensive tests");
  await row.getByRole("link", { name: "Feature Implementation with Task Management" }).click();
  await expect(page).toHaveURL(/\/sessions\/\d+$/);
  // A transcript read after the fact is a record, not a live session: its header says so.
  await expect(page.getByTestId("session-feed")).toContainText("Imported");
  await expect(page.getByTestId("session-feed")).not.toContainText("Live");

  // The fixture's three TodoWrite snapshots, newest first, with what each changed.
  const timeline = page.getByRole("list", { name: "Snapshots, newest first" });
  await expect(timeline.locator(":scope > li")).toHaveCount(3);
  await expect(timeline.locator(":scope > li").first()).toContainText(
    "Conduct security review and penetration testing",
  );
  await expect(timeline.locator(":scope > li").first()).toContainText("2/6 completed");
  await expect(timeline.locator(":scope > li").last()).toContainText("List created with 5 items");

  const current = page.getByRole("list", { name: "Current todo items" }).locator(":scope > li");
  await expect(current).toHaveCount(6);
  const statuses = ["completed", "completed", "in progress", "pending", "pending", "pending"];
  for (const [i, status] of statuses.entries()) await expect(current.nth(i)).toContainText(status);
  // In progress since 2025, but an imported transcript runs on its own clock: the item went in
  // progress at the file's last snapshot, so it is not "stuck for 500 days" because of when it was imported.
  await expect(current.nth(2)).not.toContainText("Stuck");
});

test("a snapshot pushed live appears without a reload; a malformed one is refused and the last good list stays", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const session = `e2e-live-${randomUUID()}`;
  const snap = (seq: number, items: unknown[]) => ({
    v: 1,
    id: randomUUID(),
    type: "session.todos",
    session,
    source: "pushed",
    title: "Live agent e2e",
    seq,
    ts: Date.now(),
    items,
  });
  await worker.send(
    snap(1, [
      {
        content: "Run throughput sweep C=1..100",
        status: "in_progress",
        activeForm: "Running the throughput sweep",
      },
    ]),
  );

  await signIn(page, people.ada);
  await page.goto("/sessions");
  await page.getByRole("link", { name: "Live agent e2e" }).click();
  const timeline = page
    .getByRole("list", { name: "Snapshots, newest first" })
    .locator(":scope > li");
  await expect(timeline).toHaveCount(1);
  await expect(page.getByText("Running the throughput sweep")).toBeVisible();
  await expect(page.getByRole("status", { name: /Connected/ })).toBeVisible();
  const pageLoads: string[] = [];
  page.on("load", () => pageLoads.push(page.url()));

  await worker.send(
    snap(2, [
      { content: "Run throughput sweep C=1..100", status: "completed" },
      {
        content: "Long-context runs at 30K/60K/100K",
        status: "in_progress",
        activeForm: "Running long-context",
      },
    ]),
  );
  await expect(timeline).toHaveCount(2, { timeout: 5_000 });
  await expect(timeline.first()).toContainText("Long-context runs at 30K/60K/100K");
  await expect(page.getByText("Running long-context")).toBeVisible();

  const res = await fetch(`${baseURL}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify([snap(3, [{ content: "no status" }])]),
  });
  const body = (await res.json()) as { results: Array<{ ok: boolean; code?: string }> };
  expect(body.results[0]).toMatchObject({ ok: false, code: "invalid_frame" });
  await page.reload();
  await expect(timeline).toHaveCount(2);
  await expect(
    page.getByRole("list", { name: "Current todo items" }).locator(":scope > li"),
  ).toHaveCount(2);
  expect(pageLoads).toHaveLength(1); // only the explicit reload
  worker.close();
});

test("an agent proposes a plan and waits; a person edits an item and approves; the agent gets the edited items", async ({
  page,
  context,
  baseURL,
}) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-e2e-plan-"));
  const file = path.join(dir, "plan.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      title: "Next: hidden-state extraction",
      rationale: "The sweep is done.\nStart the extraction next.",
      session: "claude-code:todowrite_session",
      items: [
        { content: "Extract hidden states for 914K samples on 4 GPUs", priority: "high" },
        { content: "Upload each file to S3", priority: "medium" },
      ],
    }),
  );

  // The /plans page is open before the agent proposes: the plan and the count arrive live.
  await signIn(page, people.ada);
  await page.goto("/plans");
  // The pending count in the navigation (the /plans header shows the same badge).
  const count = page.getByRole("navigation", { name: "Main" }).getByTestId("pending-plans-count");
  // Plans other specs left pending (the every-page seed has one) count too: this test's plan adds one.
  await page.waitForLoadState("networkidle");
  const before = (await count.count())
    ? Number(/^(\d+)/.exec((await count.textContent()) ?? "")?.[1] ?? 0)
    : 0;
  const pendingText = (n: number) => new RegExp(`^${n} awaiting decision`);

  const agent = spawn(
    process.execPath,
    [path.join(projectDir, "bin", "pitwall.mjs"), "plan", "propose", file, "--wait"],
    {
      cwd: projectDir,
      env: {
        ...process.env,
        PITWALL_URL: baseURL!,
        PITWALL_TOKEN: token,
        DATABASE_URL: "",
        PITWALL_DATA_DIR: process.env.PITWALL_E2E_DATA_DIR!,
      },
    },
  );
  let stdout = "";
  let stderr = "";
  agent.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  agent.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => agent.on("exit", (code) => resolve(code)));

  try {
    await expect(count).toHaveText(pendingText(before + 1), { timeout: 15_000 });
    // A second screen keeps /plans open: its count drops to 0 live once the plan is decided.
    const watcher = await context.newPage();
    await watcher.goto("/plans");
    const watcherCount = watcher
      .getByRole("navigation", { name: "Main" })
      .getByTestId("pending-plans-count");
    await expect(watcherCount).toHaveText(pendingText(before + 1));

    await page.getByRole("link", { name: "Next: hidden-state extraction" }).click();
    await expect(page).toHaveURL(/\/plans\/\d+$/);
    await expect(page.getByText("The sweep is done.")).toBeVisible();
    await expect(
      page.getByRole("link", { name: "Feature Implementation with Task Management" }),
    ).toBeVisible();

    await page.getByRole("button", { name: "Approve with edits" }).click();
    await page
      .getByRole("textbox", { name: "Item 2 text" })
      .fill("Upload each file to S3; after upload remove local data; max 100 parallel");
    await page.getByRole("combobox", { name: "Item 2 priority" }).selectOption("high");
    // Reorder with the keyboard: focus stays on the moved item's button.
    await page.getByRole("button", { name: "Move item 2 up" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("textbox", { name: "Item 1 text" })).toHaveValue(
      /^Upload each file to S3; after upload/,
    );
    await page.getByRole("button", { name: "Move item 1 down" }).press("Enter");
    await expect(page.getByRole("textbox", { name: "Item 2 text" })).toHaveValue(
      /^Upload each file to S3; after upload/,
    );
    await page.getByRole("textbox", { name: /Comment/ }).fill("proceed");
    await page.getByRole("button", { name: "Approve with edits" }).click();

    expect(await exited).toBe(0);
    expect(JSON.parse(stdout)).toEqual([
      { content: "Extract hidden states for 914K samples on 4 GPUs", priority: "high" },
      {
        content: "Upload each file to S3; after upload remove local data; max 100 parallel",
        priority: "high",
      },
    ]);
    expect(stderr).toContain("approved by Ada Approver: proceed");

    await expect(page.getByText("Recorded: Approved with edits.")).toBeVisible();
    const decision = page.getByRole("list", { name: "Decided items against the proposal" });
    await expect(decision).toContainText("Upload each file to S3");
    await expect(decision).toContainText("edited");
    await expect(page.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    // Back to what it was once decided (hidden when that was none).
    if (before === 0) await expect(watcherCount).toHaveCount(0, { timeout: 5_000 });
    else await expect(watcherCount).toHaveText(pendingText(before), { timeout: 5_000 });
    await watcher.close();
  } finally {
    if (agent.exitCode === null) agent.kill();
  }
});

test("a plan based on a run that failed since is flagged; a comment is required to request changes; a decision someone made first is a clear conflict", async ({
  page,
  request,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const run = `e2e-run-${randomUUID()}`;
  const plan = `e2e-plan-${randomUUID()}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.start",
    run,
    name: "Extraction e2e",
    kind: "extraction",
    total: 914_000,
    unit: "samples",
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "plan.propose",
    plan,
    run,
    title: "Resume the extraction",
    items: [{ content: "Resume from the last checkpoint" }],
  });
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "run.end",
    run,
    status: "failed",
    error: "CUDA out of memory",
  });
  worker.close();

  // This page's live socket is mocked and stays silent, so the page cannot learn of the other
  // person's decision before it sends its own (it would hide the buttons otherwise).
  await page.routeWebSocket(/\/ws\/live$/, () => undefined);
  await signIn(page, people.ada);
  await page.goto("/plans");
  await page.getByRole("link", { name: "Resume the extraction", exact: true }).click();
  const warning = page.getByRole("alert").filter({ hasText: "Based on stale state" });
  await expect(warning).toContainText("was running; it is failed now");

  await page.getByRole("button", { name: "Request changes" }).click();
  await expect(page.getByText("a comment is required to request changes")).toBeVisible();
  await expect(page.getByRole("textbox", { name: /Comment/ })).toBeFocused();

  // Bob rejects it first, through the same API the page uses (his own session).
  const id = Number(/\/plans\/(\d+)$/.exec(page.url())![1]);
  const origin = { origin: baseURL! };
  expect(
    (
      await request.post("/api/auth/sign-in/email", {
        data: { email: people.bob, password: PASSWORD },
        headers: origin,
      })
    ).status(),
  ).toBe(200);
  const noComment = await request.post(`/api/plans/by-id/${id}/decision`, {
    data: { decision: "changes_requested", comment: "  " },
    headers: origin,
  });
  expect(noComment.status()).toBe(400);
  expect(await noComment.json()).toMatchObject({
    error: { code: "invalid_body", message: "comment: a comment is required to request changes" },
  });
  const first = await request.post(`/api/plans/by-id/${id}/decision`, {
    data: { decision: "rejected", comment: "run failed" },
    headers: origin,
  });
  expect(first.status()).toBe(200);
  await page.getByRole("textbox", { name: /Comment/ }).fill("split the resume step");
  await page.getByRole("button", { name: "Request changes" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "Your decision was not recorded" }),
  ).toContainText("already decided by Bob Builder (rejected)");
  await expect(page.getByText("run failed")).toBeVisible();
});

test("a viewer sees a plan without the decision actions, and the API refuses their decision", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, token);
  const plan = `e2e-plan-${randomUUID()}`;
  await worker.send({
    v: 1,
    id: randomUUID(),
    type: "plan.propose",
    plan,
    title: "Viewer cannot decide this",
    items: [{ content: "step one", priority: "low" }],
  });
  worker.close();

  await signIn(page, people.val);
  await page.goto("/plans");
  await page.getByRole("link", { name: "Viewer cannot decide this" }).click();
  await expect(
    page.getByText("Only people with the approver role can decide plans."),
  ).toBeVisible();
  await expect(
    page.getByRole("button", { name: /^(Approve|Approve with edits|Request changes|Reject)$/ }),
  ).toHaveCount(0);
  const id = Number(/\/plans\/(\d+)$/.exec(page.url())![1]);
  const res = await page.request.post(`/api/plans/by-id/${id}/decision`, {
    data: { decision: "approved" },
    headers: { origin: baseURL! },
  });
  expect(res.status()).toBe(403);
});
