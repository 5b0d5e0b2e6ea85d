import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

import { modelSawToolResult, withAgentFixture } from "@/test/support/agents/fixture";
import {
  lastToolResults,
  offersTools,
  type ScriptedReply,
} from "@/test/support/agents/model-server";
import { installedProject } from "@/test/support/agents/testbed";
import { until } from "@/test/support/until";

// The real opencode CLI (pinned 1.18.33) with its DEFAULT permission settings, as the headless
// `opencode serve` its web and IDE clients use (`opencode run` rejects every permission request
// itself, so nobody could decide there), our plugin installed by `pitwall agent install opencode`,
// a scripted model server and a real Pitwall. opencode's defaults ask before a shell command
// reaches outside the project (external_directory) and before reading a `.env` file: the first is
// approved by a click in Chromium at 390 px and runs; the second is denied with a message that
// the model receives; a third, answered first in opencode's own API (as its TUI or web client
// would), closes as answered in the terminal. The audit shows who decided.

const fx = withAgentFixture("opencode-perm-box");

test("opencode permission requests wait in the inbox: approved at 390 px the command runs, denied the model reads why", async () => {
  const { server, pool } = fx.bed;
  const tag = randomUUID().slice(0, 8);
  const { dir, env: pitwallEnv } = installedProject(fx.bed, "opencode", {
    branch: "perm-branch",
    prefix: "oc-perm",
  });
  fs.writeFileSync(path.join(dir, ".env"), `SECRET_${tag}=1\n`);
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-oc-outside-"));
  fs.writeFileSync(path.join(outside, "notes.txt"), `outside-notes-${tag}\n`);
  fs.writeFileSync(path.join(outside, "other.txt"), `other-notes-${tag}\n`);
  const command = `cat ${path.join(outside, "notes.txt")}`;
  const reason = `keep the secrets out of it ${tag}`;
  // A second read outside the project (opencode asks for `cat` of such a path, not for `ls`).
  const listing = `cat ${path.join(outside, "other.txt")}`;
  const model = await fx.startModel((req): ScriptedReply => {
    if (!offersTools(req)) return { text: "Permission test" };
    const last = lastToolResults(req).at(-1);
    if (!last)
      return { toolCalls: [{ name: "bash", input: { command, description: "Read the notes" } }] };
    if (last.toolName === "bash" && last.content.includes(`outside-notes-${tag}`))
      return { toolCalls: [{ name: "read", input: { filePath: path.join(dir, ".env") } }] };
    if (last.toolName === "read")
      return { toolCalls: [{ name: "bash", input: { command: listing, description: "List" } }] };
    return { text: `FINAL: ${last.content.slice(0, 400)}` };
  });
  // The project's opencode.json names the scripted provider and nothing else: no permission settings.
  const oc = await fx.opencodeServe({ dir, env: pitwallEnv, model });
  const output = () =>
    `opencode stdout:\n${oc.stdout.slice(-20).join("\n")}\nopencode stderr:\n${oc.stderr.slice(-60).join("\n")}`;

  const { page, user: approver } = await fx.signedInPage();

  const sessionId = await oc.prompt("read the notes");
  const waiting = async (toolName: string) =>
    (
      await pool.query<{
        id: number;
        summary: string;
        agent: string;
        project: string | null;
        gitBranch: string | null;
        cwd: string | null;
        sessionKey: string | null;
        host: string;
      }>(
        `SELECT i.id, i.summary, i.agent, i.project, i."gitBranch", i.cwd, s.key AS "sessionKey", h.name AS host
         FROM "InboxItem" i JOIN "Host" h ON h.id = i."hostId" LEFT JOIN "AgentSession" s ON s.id = i."sessionId"
         WHERE i."toolName" = $1 AND i.status = 'waiting'`,
        [toolName],
      )
    ).rows[0];

  // 1. A shell command reaching outside the project: opencode's default asks; approved in the browser.
  const first = await until(
    "the external_directory request in the inbox",
    () => waiting("external_directory"),
    300_000,
    output,
  );
  expect(first).toMatchObject({
    agent: "opencode",
    project: path.basename(dir),
    gitBranch: "perm-branch",
    cwd: dir,
    host: "opencode-perm-box",
  });
  expect(first.summary).toContain(command);
  await page.goto("/inbox");
  const item1 = page.getByTestId("inbox-item").filter({ hasText: command });
  await item1.getByText("opencode", { exact: true }).waitFor();
  await item1.getByText("branch perm-branch").waitFor();
  await item1.getByRole("button", { name: "Approve", exact: true }).click();
  await page.getByRole("button", { name: "Send now" }).click();
  await until(
    "the command's output at the model",
    async () => modelSawToolResult(model, "bash", `outside-notes-${tag}`),
    120_000,
    output,
  );

  // 2. Reading .env: opencode's default asks; denied with a message the model receives.
  const second = await until("the .env read in the inbox", () => waiting("read"), 120_000, output);
  expect(second.summary).toContain(".env");
  await page.reload();
  const item2 = page.getByTestId("inbox-item").filter({ hasText: ".env" });
  await item2.getByRole("button", { name: "Deny…" }).click();
  await item2.getByLabel("Why (the agent reads this)").fill(reason);
  await item2.getByRole("button", { name: "Deny", exact: true }).click();
  await page.getByRole("button", { name: "Send now" }).click();
  await until(
    "the denial's message at the model",
    async () => modelSawToolResult(model, "read", reason),
    120_000,
    output,
  );
  expect(
    model.requests.some((r) => lastToolResults(r).some((t) => t.content.includes(`SECRET_${tag}`))),
  ).toBe(false);
  expect(second.sessionKey ?? first.sessionKey).toBe(sessionId);

  // 3. Answered in opencode's own UI first (its API, as the TUI or web client replies): the
  // plugin stops waiting and Pitwall closes the item as answered in the terminal; a late decision
  // is refused.
  const third = await until(
    "the second outside read in the inbox",
    async () =>
      (
        await pool.query<{ id: number; key: string }>(
          `SELECT id, key FROM "InboxItem" WHERE "toolName" = 'external_directory' AND status = 'waiting' AND summary LIKE $1`,
          [`%${listing}%`],
        )
      ).rows[0],
    120_000,
    output,
  );
  const requestID = third.key.split(":perm:")[1]!;
  const replied = await fetch(`${oc.url}/permission/${requestID}/reply`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-opencode-directory": encodeURIComponent(dir),
    },
    body: JSON.stringify({ reply: "once" }),
  });
  expect(replied.status, await replied.text()).toBe(200);
  await until(
    "the item closed as answered in the terminal",
    async () =>
      (
        await pool.query<{ status: string }>(`SELECT status FROM "InboxItem" WHERE id = $1`, [
          third.id,
        ])
      ).rows[0]!.status === "answered_in_terminal",
    30_000,
    output,
  );
  const late = await fetch(`${server.url}/api/inbox/${third.id}/decision`, {
    method: "POST",
    headers: { cookie: approver.cookie, origin: server.url, "content-type": "application/json" },
    body: JSON.stringify({ decision: "deny", message: "too late" }),
  });
  expect(late.status).toBe(409);
  await until(
    "the second outside read's output at the model",
    async () => modelSawToolResult(model, "bash", `other-notes-${tag}`),
    60_000,
    output,
  );

  // The audit: who decided what.
  const audit = (
    await pool.query<{ itemId: number; decision: string; decidedBy: string; message: string }>(
      `SELECT "itemId", decision, "decidedBy", message FROM "InboxAudit" WHERE "itemId" = ANY($1) ORDER BY "itemId"`,
      [[first.id, second.id, third.id]],
    )
  ).rows;
  expect(audit).toEqual([
    { itemId: first.id, decision: "allow", decidedBy: "approver person", message: null },
    { itemId: second.id, decision: "deny", decidedBy: "approver person", message: reason },
    {
      itemId: third.id,
      decision: "answered_in_terminal",
      decidedBy: "pitwall",
      message: "answered in terminal",
    },
  ]);
}, 600_000);
