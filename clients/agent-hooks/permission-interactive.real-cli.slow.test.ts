import { randomUUID } from "node:crypto";
import fs from "node:fs";
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

// The real Claude Code TUI (pinned version, INTERACTIVE, not `-p`) in a node-pty pseudo-terminal,
// in its default permission mode, with our hook installed by `pitwall agent install`: a Bash
// `mkdir` waits in the inbox (and in Claude Code's own dialog), an approver clicks Approve on
// /inbox in Chromium at 390 px and the command runs; the next one, denied there with a message,
// does not run and the model receives the message. Only the first-run questions are pre-answered
// (claudeInteractiveHome): nobody touches the terminal.

const fx = withAgentFixture("tui-box");

test("interactive TUI: a Bash permission approved by a click at 390 px runs; one denied with a message is not run and the model reads the message", async () => {
  const { pool } = fx.bed;
  const tag = randomUUID().slice(0, 8);
  const reason = `use the scratch folder ${tag}`;
  const { dir, env } = installedProject(fx.bed, "claude-code", {
    branch: "tui-perm",
    prefix: "cc-tui",
  });
  const model = await fx.startModel((req): ScriptedReply => {
    if (!offersTools(req)) return { text: "TUI permission test" };
    const last = lastToolResults(req).at(-1);
    if (!last)
      return {
        toolCalls: [
          {
            name: "Bash",
            input: { command: `mkdir clicked-${tag} && echo made-${tag}`, description: "Make" },
          },
        ],
      };
    if (last.content.includes(`made-${tag}`))
      return {
        toolCalls: [
          { name: "Bash", input: { command: `touch denied-${tag}`, description: "Touch" } },
        ],
      };
    return { text: `FINAL: ${last.content.slice(0, 300)}` };
  });
  const run = fx.claudePty({
    dir,
    env,
    model,
    // Claude Code 2.1.332's interactive default is auto mode: working-folder commands run unasked
    // and the API's server-side check blocks flagged ones, asking only after 3 consecutive blocks
    // (permission-automode.real-cli.slow.test.ts); `default` is the mode that asks every time.
    args: ["--permission-mode", "default", "make the folder"],
  });
  const terminal = () => run.tail();
  const waiting = async (summary: string) =>
    (
      await pool.query<{ id: number; agent: string; gitBranch: string | null }>(
        `SELECT id, agent, "gitBranch" FROM "InboxItem" WHERE summary = $1 AND status = 'waiting'`,
        [summary],
      )
    ).rows[0];

  const first = await until(
    "the first Bash waiting in the inbox",
    () => waiting(`mkdir clicked-${tag} && echo made-${tag}`),
    240_000,
    terminal,
  );
  expect(first).toMatchObject({ agent: "claude-code", gitBranch: "tui-perm" });
  // Claude Code's own dialog shows in the terminal at the same time (the hook races it).
  await until(
    "Claude Code's own dialog",
    async () => /proceed\?/i.test(run.plain()),
    60_000,
    terminal,
  );

  const { page } = await fx.signedInPage();
  await page.goto("/inbox");
  const firstRow = page.getByTestId("inbox-item").filter({ hasText: `mkdir clicked-${tag}` });
  await firstRow.getByText("tui-box").first().waitFor();
  await firstRow.getByRole("button", { name: "Approve", exact: true }).click();
  await page.getByRole("button", { name: "Send now" }).click();

  // The approved command ran in the agent's folder and its output reached the model.
  await until(
    "the approved command's folder",
    async () => fs.existsSync(path.join(dir, `clicked-${tag}`)),
    120_000,
    terminal,
  );
  await until(
    "the approved command's output at the model",
    async () => modelSawToolResult(model, "Bash", `made-${tag}`, { ok: true }),
    60_000,
    terminal,
  );

  const second = await until(
    "the second Bash waiting in the inbox",
    () => waiting(`touch denied-${tag}`),
    120_000,
    terminal,
  );
  const secondRow = page.getByTestId("inbox-item").filter({ hasText: `touch denied-${tag}` });
  await secondRow.getByRole("button", { name: "Deny…" }).click();
  await secondRow.getByLabel("Why (the agent reads this)").fill(reason);
  await secondRow.getByRole("button", { name: "Deny", exact: true }).click();
  await page.getByRole("button", { name: "Send now" }).click();

  const denial = await until(
    "the denial's message at the model",
    async () =>
      model.requests
        .flatMap((r) => lastToolResults(r))
        .find((t) => t.toolName === "Bash" && t.content.includes(reason)),
    120_000,
    terminal,
  );
  expect(denial.isError).toBe(true);
  expect(denial.content).toContain("approver person denied this in Pitwall");
  await until(
    "the model's last answer in the terminal",
    async () => /FINAL:/.test(run.plain()),
    60_000,
    terminal,
  );
  expect(fs.existsSync(path.join(dir, `denied-${tag}`))).toBe(false);

  // The audit names the approver for both decisions.
  const audit = await pool.query<{ itemId: number; decision: string; decidedBy: string }>(
    `SELECT "itemId", decision, "decidedBy" FROM "InboxAudit" WHERE "itemId" = ANY($1) ORDER BY "itemId"`,
    [[first.id, second.id]],
  );
  expect(audit.rows).toEqual([
    { itemId: first.id, decision: "allow", decidedBy: "approver person" },
    { itemId: second.id, decision: "deny", decidedBy: "approver person" },
  ]);
}, 600_000);
