import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";

import { E2E_USERS, signInAs } from "./auth-users";
import { createToken } from "./support";

// Inbox rules and history on a phone (390 px), as an approver: "Always allow…" on a waiting Bash
// command writes a rule (the person edits the pattern) and approves it; the next matching request
// is decided at once by the server; a deny rule added on the Rules tab wins over that allow rule;
// the History tab shows the person's decision and both rule applications. A viewer sees the rules
// but cannot add or decide, and has no History tab. Rules are scoped to this test's project so
// other specs sharing the database are untouched.

test.use({ viewport: { width: 390, height: 844 } });

const noOverflow = async (page: Page) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

test("always allow writes a rule that decides the next request; a deny rule wins; the history shows who or which rule decided", async ({
  page,
  baseURL,
  request,
  browser,
}) => {
  const tag = randomUUID().slice(0, 6);
  const project = `e2e-rules-${tag}`;
  const token = createToken(`e2e-rules-${tag}`);
  const open = async (command: string) => {
    const res = await request.post(`${baseURL}/api/inbox`, {
      headers: { authorization: `Bearer ${token}` },
      data: {
        key: `e2e:${tag}:${randomUUID()}`,
        kind: "permission",
        agent: "claude-code",
        toolName: "Bash",
        summary: command,
        input: { command },
        project,
        cwd: `/home/ada/${project}`,
        expiresInS: 600,
      },
    });
    expect(res.status()).toBe(201);
    return (await res.json()) as {
      id: number;
      status: string;
      decision: { decision: string; message: string | null; decidedBy: string } | null;
    };
  };

  const first = await open(`make bench-${tag}`);
  expect(first.status).toBe("waiting");
  await page.goto("/inbox");
  const item = page.getByTestId("inbox-item").filter({ hasText: `make bench-${tag}` });
  await item.getByRole("button", { name: "Always allow…" }).click();
  const pattern = item.getByLabel(/Always allow Bash when it matches/);
  await expect(pattern).toHaveValue(`make bench-${tag}`);
  await pattern.fill("make *");
  await expect(item.getByLabel("Project (empty: everywhere)")).toHaveValue(project);
  await noOverflow(page);
  await item.getByRole("button", { name: "Approve and add the rule" }).click();
  await page.getByTestId("inbox-undo").getByRole("button", { name: "Send now" }).click();
  await expect(item).toHaveCount(0);
  await expect(page.getByTestId("inbox-notice")).toContainText("sent");

  // The next request of that project is decided by the rule at once, without anyone asking.
  const next = await open(`make test-${tag}`);
  expect(next).toMatchObject({ status: "decided", decision: { decision: "allow" } });
  expect(next.decision!.decidedBy).toContain("allow Bash(make *) in " + project);

  // The Rules tab lists it; add a deny rule there, which wins over the allow rule.
  await page
    .getByRole("navigation", { name: "Inbox sections" })
    .getByRole("link", { name: "Rules" })
    .click();
  await expect(page).toHaveURL(/tab=rules/);
  const rules = page.getByTestId("inbox-rule").filter({ hasText: project });
  await expect(rules).toHaveCount(1);
  await expect(rules).toContainText("make *");
  const form = page.getByRole("form", { name: "Add an inbox rule" });
  await form.getByLabel("Effect").selectOption("deny");
  await form.getByLabel("Pattern").fill("make clean*");
  await form.getByLabel("Project (empty: everywhere)").fill(project);
  await form.getByLabel("Message to the model (deny)").fill("clean builds only in CI");
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(rules).toHaveCount(2);
  await noOverflow(page);
  const denied = await open(`make clean-${tag}`);
  expect(denied).toMatchObject({
    status: "decided",
    decision: { decision: "deny", message: "clean builds only in CI" },
  });

  // History: the person's decision (with the rule it wrote) and both rule applications.
  await page
    .getByRole("navigation", { name: "Inbox sections" })
    .getByRole("link", { name: "History" })
    .click();
  const entries = page.getByTestId("inbox-audit-entry").filter({ hasText: tag });
  await expect(entries).toHaveCount(3);
  await expect(entries.filter({ hasText: `make bench-${tag}` })).toContainText(
    E2E_USERS.approver.name,
  );
  await expect(entries.filter({ hasText: `make bench-${tag}` })).toContainText("wrote rule");
  await expect(entries.filter({ hasText: `make clean-${tag}` })).toContainText(
    "deny Bash(make clean*) in " + project,
  );
  await expect(entries.filter({ hasText: `make clean-${tag}` })).toContainText(
    "clean builds only in CI",
  );
  await expect(page.getByRole("link", { name: "Download CSV" })).toHaveAttribute(
    "href",
    "/api/inbox/audit?format=csv",
  );
  await noOverflow(page);

  // Delete the allow rule: the next request waits for a person again.
  await page
    .getByRole("navigation", { name: "Inbox sections" })
    .getByRole("link", { name: "Rules" })
    .click();
  await rules
    .filter({ hasText: "make *" })
    .getByRole("button", { name: /Delete rule/ })
    .click();
  await expect(rules).toHaveCount(1);
  expect((await open(`make docs-${tag}`)).status).toBe("waiting");

  // A viewer sees the rules and the waiting item, never a way to decide or add, and no history.
  const context = await browser.newContext({
    storageState: { cookies: [], origins: [] },
    viewport: { width: 390, height: 844 },
  });
  const viewerPage = await context.newPage();
  await signInAs(viewerPage, E2E_USERS.viewer, "/inbox?tab=rules");
  await expect(viewerPage.getByTestId("inbox-rule").filter({ hasText: project })).toHaveCount(1);
  await expect(viewerPage.getByRole("form", { name: "Add an inbox rule" })).toHaveCount(0);
  await expect(viewerPage.getByRole("button", { name: /Delete rule/ })).toHaveCount(0);
  await expect(
    viewerPage
      .getByRole("navigation", { name: "Inbox sections" })
      .getByRole("link", { name: "History" }),
  ).toHaveCount(0);
  await viewerPage.goto("/inbox");
  const waiting = viewerPage.getByTestId("inbox-item").filter({ hasText: `make docs-${tag}` });
  await expect(waiting).toHaveCount(1);
  await expect(waiting.getByRole("button")).toHaveCount(0);
  await context.close();
});
