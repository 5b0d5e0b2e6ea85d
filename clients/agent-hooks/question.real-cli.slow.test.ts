import { randomUUID } from "node:crypto";
import { expect, test } from "vitest";

import { claudeOfflineEnv } from "@/test/support/agents/clis";
import { withAgentFixture } from "@/test/support/agents/fixture";
import {
  lastToolResults,
  offersTools,
  startModelServer,
  type ScriptedReply,
} from "@/test/support/agents/model-server";
import { outputOf, runClaude } from "@/test/support/agents/run-agent";
import { installedProject } from "@/test/support/agents/testbed";
import { openSignedInPage } from "@/test/support/browser";
import { newSignedInUser } from "@/test/support/people";
import { until } from "@/test/support/until";

// The real Claude Code CLI (pinned 2.1.332, `-p` with the stdio permission prompt tool nobody
// answers, default permission mode) with our hook installed by `pitwall agent install`, against a
// scripted model server and a real Pitwall: the model calls AskUserQuestion with two questions;
// the inbox shows them with their options; a person picks an option for one and writes a free-text
// answer for the other in Chromium at 390 px; the hook answers the PermissionRequest with
// `updatedInput.answers` and the model receives both answers as the tool's result.

const fx = withAgentFixture("claude-question-box");

test("AskUserQuestion answered in the inbox at 390 px: the chosen option and the free text reach the model", async () => {
  const { bed } = fx;
  const { server, pool, prisma } = bed;
  const claude = fx.clis.claude;
  const tag = randomUUID().slice(0, 8);
  const { dir, env: pitwallEnv } = installedProject(bed, "claude-code", {
    branch: "question-branch",
    prefix: "cc-question",
  });
  const range = `Which concurrency range ${tag}?`;
  const engine = `Which engine flags ${tag}?`;
  const model = await startModelServer((req): ScriptedReply => {
    if (!offersTools(req)) return { text: "Question test" };
    const last = lastToolResults(req).at(-1);
    if (!last)
      return {
        toolCalls: [
          {
            name: "AskUserQuestion",
            input: {
              questions: [
                {
                  question: range,
                  header: "Range",
                  multiSelect: false,
                  options: [
                    { label: "C=1..32", description: "the quick sweep" },
                    { label: "C=1..64", description: "the full sweep" },
                  ],
                },
                {
                  question: engine,
                  header: "Flags",
                  multiSelect: false,
                  options: [
                    { label: "defaults", description: "no extra flags" },
                    { label: "MTP", description: "speculative decoding on" },
                  ],
                },
              ],
            },
          },
        ],
      };
    return { text: `FINAL: ${last.content.slice(0, 600)}` };
  });
  const approver = await newSignedInUser(prisma, server.url, "approver");
  const browser = await openSignedInPage(server.url, approver.cookie);
  const { page } = browser;
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const run = runClaude({
      claude,
      cwd: dir,
      env: {
        ...claudeOfflineEnv(model.url),
        ...pitwallEnv,
      },
      prompt: "plan the sweep",
      askStdio: true,
      timeoutMs: 300_000,
    });
    const output = outputOf(run);
    const item = await until(
      "the question in the inbox",
      async () =>
        (
          await pool.query<{ id: number; kind: string; summary: string; gitBranch: string }>(
            `SELECT id, kind::text AS kind, summary, "gitBranch" FROM "InboxItem" WHERE "toolName" = 'AskUserQuestion' AND status = 'waiting'`,
          )
        ).rows[0],
      150_000,
      output,
    );
    expect(item).toMatchObject({
      kind: "question",
      summary: `${range} · ${engine}`,
      gitBranch: "question-branch",
    });
    await page.goto("/inbox");
    const row = page.getByTestId("inbox-item").filter({ hasText: range });
    const form = row.getByRole("form", { name: "Answer the question" });
    // Nothing can be sent before every question has an answer; there is no plain "Approve".
    expect(await form.getByRole("button", { name: "Send answer" }).isDisabled()).toBe(true);
    expect(await row.getByRole("button", { name: "Approve", exact: true }).count()).toBe(0);
    await form
      .getByRole("group", { name: new RegExp(range) })
      .getByLabel(/C=1\.\.64/)
      .check();
    await form
      .getByRole("group", { name: new RegExp(engine) })
      .getByLabel("Other (your own answer)")
      .fill(`MTP with 3 draft tokens ${tag}`);
    const box = await form.getByRole("button", { name: "Send answer" }).boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(44);
    await form.getByRole("button", { name: "Send answer" }).click();
    await page.getByRole("button", { name: "Send now" }).click();

    const done = await run;
    expect(done.code, output()).toBe(0);
    const result = model.requests
      .flatMap((r) => lastToolResults(r))
      .find((t) => t.toolName === "AskUserQuestion");
    expect(result?.isError, output()).toBe(false);
    expect(result!.content).toContain("C=1..64");
    expect(result!.content).toContain(`MTP with 3 draft tokens ${tag}`);
    expect(done.result).toContain("C=1..64");
    const audit = (
      await pool.query<{ decision: string; editedInput: unknown }>(
        `SELECT decision, "editedInput" FROM "InboxAudit" WHERE "itemId" = $1`,
        [item.id],
      )
    ).rows;
    expect(audit).toEqual([
      {
        decision: "allow",
        editedInput: {
          answers: { [range]: "C=1..64", [engine]: `MTP with 3 draft tokens ${tag}` },
        },
      },
    ]);
  } finally {
    await browser.close();
    await model.close();
  }
}, 480_000);
