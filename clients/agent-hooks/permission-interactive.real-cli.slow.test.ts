import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import type { PrismaClient } from "@/generated/prisma/client";
import { claudeOfflineEnv, ensureAgentClis } from "@/test/support/agents/clis";
import {
  lastToolResults,
  offersTools,
  startModelServer,
  type ScriptedReply,
} from "@/test/support/agents/model-server";
import { claudeInteractiveHome } from "@/test/support/agents/run-interactive";
import { runClaudePty } from "@/test/support/agents/run-pty";
import {
  installedProject,
  startAgentTestbed,
  type AgentTestbed,
} from "@/test/support/agents/testbed";
import { openSignedInPage } from "@/test/support/browser";
import { newSignedInUser } from "@/test/support/people";
import type { TestServer } from "@/test/support/server";
import { until } from "@/test/support/until";

// The real Claude Code TUI (pinned version, INTERACTIVE, not `-p`) in a node-pty pseudo-terminal,
// in its default permission mode, with our hook installed by `pitwall agent install`: a Bash
// `mkdir` waits in the inbox (and in Claude Code's own dialog), an approver clicks Approve on
// /inbox in Chromium at 390 px and the command runs; the next one, denied there with a message,
// does not run and the model receives the message. Only the first-run questions are pre-answered
// (claudeInteractiveHome): nobody touches the terminal.

let bed: AgentTestbed;
let server: TestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let claude: string;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  claude = ensureAgentClis().claude;
  bed = await startAgentTestbed("tui-box");
  ({ server, pool, prisma } = bed);
}, 600_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await bed?.close();
});

test("interactive TUI: a Bash permission approved by a click at 390 px runs; one denied with a message is not run and the model reads the message", async () => {
  const tag = randomUUID().slice(0, 8);
  const reason = `use the scratch folder ${tag}`;
  const { dir, env } = installedProject(bed, "claude-code", {
    branch: "tui-perm",
    prefix: "cc-tui",
  });
  const model = await startModelServer((req): ScriptedReply => {
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
  cleanups.push(() => model.close());
  const offline = claudeOfflineEnv(model.url);
  const run = runClaudePty({
    claude,
    cwd: dir,
    env: { ...offline, ...env, HOME: claudeInteractiveHome(dir, offline.ANTHROPIC_API_KEY!) },
    // Claude Code 2.1.332's interactive default is auto mode: working-folder commands run unasked
    // and the API's server-side check blocks flagged ones, asking only after 3 consecutive blocks
    // (permission-automode.real-cli.slow.test.ts); `default` is the mode that asks every time.
    args: ["--permission-mode", "default", "make the folder"],
  });
  cleanups.push(() => run.stop());
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

  const approver = await newSignedInUser(prisma, server.url, "approver");
  const browser = await openSignedInPage(server.url, approver.cookie);
  cleanups.push(() => browser.close());
  const { page } = browser;
  await page.setViewportSize({ width: 390, height: 844 });
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
    async () =>
      model.requests.some((r) =>
        lastToolResults(r).some(
          (t) => t.toolName === "Bash" && !t.isError && t.content.includes(`made-${tag}`),
        ),
      ),
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
