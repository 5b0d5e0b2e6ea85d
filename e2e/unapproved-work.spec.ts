import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";

import { connectWorker, createToken } from "./support";

// A session that runs a command while its plan waits for a decision is flagged "worked without
// approval" on its page and in the inbox history, as the opencode plugin reports it.

test("work done while a plan waits is flagged on the session page and in the inbox history", async ({
  page,
  baseURL,
}) => {
  const worker = await connectWorker(baseURL!, createToken("e2e-unapproved"));
  const session = `e2e-unapproved-${randomUUID()}`;
  const title = `Unapproved ${randomUUID().slice(0, 6)}`;
  const frame = (f: Record<string, unknown>) => ({ v: 1, id: randomUUID(), ...f });
  const activity = (extra: Record<string, unknown>) =>
    frame({
      type: "session.activity",
      session,
      source: "opencode",
      state: "working",
      ts: Date.now(),
      ...extra,
    });
  await worker.send(activity({ title: `session ${title}` }));
  await worker.send(
    frame({
      type: "plan.propose",
      plan: `${session}:plan:1`,
      session,
      title,
      items: [{ content: "Extract" }],
    }),
  );
  await worker.send(activity({ tool: "bash", detail: "ran bash" }));

  await page.goto("/sessions");
  await page
    .getByRole("link", { name: `session ${title}` })
    .first()
    .click();
  const flag = page.getByTestId("worked-without-approval");
  await expect(flag).toContainText("Worked without approval");
  await expect(flag).toContainText("bash");
  await expect(flag.getByRole("link", { name: title })).toHaveAttribute("href", /^\/plans\/\d+$/);
  const planId = (await flag.getByRole("link", { name: title }).getAttribute("href"))!
    .split("/")
    .pop();

  await page.goto("/inbox?tab=history");
  const entry = page.getByTestId("inbox-audit-entry").filter({ hasText: title }).first();
  await expect(entry).toContainText("worked without approval");
  await expect(entry).toContainText("pitwall");

  // Leave no pending plan behind for later specs.
  const res = await page.request.post(`/api/plans/by-id/${planId}/decision`, {
    data: { decision: "rejected" },
    headers: { origin: baseURL! },
  });
  expect(res.status()).toBe(200);
  worker.close();
});
