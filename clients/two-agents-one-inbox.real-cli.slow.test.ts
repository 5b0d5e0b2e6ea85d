import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

import { createToken } from "@/lib/server/repositories/tokens";
import { claudeOfflineEnv } from "@/test/support/agents/clis";
import { withAgentFixture } from "@/test/support/agents/fixture";
import {
  lastToolResults,
  offersTools,
  type ScriptedReply,
} from "@/test/support/agents/model-server";
import { outputOf, runClaude } from "@/test/support/agents/run-agent";
import { installedProject } from "@/test/support/agents/testbed";
import { until } from "@/test/support/until";

// Issue 23's "done when", with both real agent CLIs and their DEFAULT settings: a Claude Code
// session on one host and an opencode session on another (two worker tokens) each wait on a
// shell command; both items show in ONE inbox on a phone-sized page (390 px) in real Chromium;
// the Claude Code one is approved by a click and runs, the opencode one is denied with a message
// that its model receives; the audit names who decided what and when.

const fx = withAgentFixture("gpu-box-a");

test("a Claude Code session and an opencode session on two hosts wait in one inbox at 390 px: one approved by a click runs, the other denied, its model reads why", async () => {
  const { bed } = fx;
  const { server, pool, prisma } = bed;
  const tag = randomUUID().slice(0, 8);
  const reason = `not outside the project ${tag}`;

  // Host A: Claude Code, `mkdir` needs a permission in its default mode.
  const cc = installedProject(bed, "claude-code", { branch: "two-a", prefix: "two-cc" });
  const ccCommand = `mkdir approved-${tag} && echo made-${tag}`;
  const ccModel = await fx.startModel((req): ScriptedReply => {
    if (!offersTools(req)) return { text: "Two agents" };
    const last = lastToolResults(req).at(-1);
    if (!last)
      return { toolCalls: [{ name: "Bash", input: { command: ccCommand, description: "Make" } }] };
    return { text: `FINAL: ${last.content.slice(0, 400)}` };
  });

  // Host B: opencode (its own token), a shell command reading outside the project: its default asks.
  const hostB = { server, token: (await createToken(prisma, "gpu-box-b")).token };
  const oc = installedProject(hostB, "opencode", { branch: "two-b", prefix: "two-oc" });
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-two-outside-"));
  fs.writeFileSync(path.join(outside, "secret.txt"), `outside-secret-${tag}\n`);
  const ocCommand = `cat ${path.join(outside, "secret.txt")}`;
  const ocModel = await fx.startModel((req): ScriptedReply => {
    if (!offersTools(req)) return { text: "Two agents" };
    const last = lastToolResults(req).at(-1);
    if (!last)
      return { toolCalls: [{ name: "bash", input: { command: ocCommand, description: "Read" } }] };
    return { text: `FINAL: ${last.content.slice(0, 400)}` };
  });
  const opencode = await fx.opencodeServe({ dir: oc.dir, env: oc.env, model: ocModel });

  const claudeRun = runClaude({
    claude: fx.clis.claude,
    cwd: cc.dir,
    env: { ...claudeOfflineEnv(ccModel.url), ...cc.env },
    prompt: "make the folder",
    askStdio: true,
    timeoutMs: 420_000,
  });
  const output = () =>
    `claude:\n${outputOf(claudeRun)()}\nopencode stderr:\n${opencode.stderr.slice(-40).join("\n")}`;
  await opencode.prompt("read the secret");

  const waiting = async (host: string) =>
    (
      await pool.query<{ id: number; agent: string; summary: string; project: string | null }>(
        `SELECT i.id, i.agent, i.summary, i.project FROM "InboxItem" i JOIN "Host" h ON h.id = i."hostId"
          WHERE h.name = $1 AND i.status = 'waiting'`,
        [host],
      )
    ).rows[0];
  const ccItem = await until(
    "Claude Code's Bash waits",
    () => waiting("gpu-box-a"),
    300_000,
    output,
  );
  const ocItem = await until("opencode's bash waits", () => waiting("gpu-box-b"), 300_000, output);
  expect(ccItem).toMatchObject({ agent: "claude-code", project: path.basename(cc.dir) });
  expect(ccItem.summary).toContain(`mkdir approved-${tag}`);
  expect(ocItem).toMatchObject({ agent: "opencode", project: path.basename(oc.dir) });
  expect(ocItem.summary).toContain(ocCommand);

  // One inbox, a phone-sized page: both items, each with its agent and host.
  const { page } = await fx.signedInPage();
  await page.goto("/inbox");
  const ccRow = page.getByTestId("inbox-item").filter({ hasText: `mkdir approved-${tag}` });
  const ocRow = page.getByTestId("inbox-item").filter({ hasText: ocCommand });
  await ccRow.getByText("gpu-box-a").first().waitFor();
  await ocRow.getByText("gpu-box-b").first().waitFor();
  await ccRow.getByText("claude-code", { exact: true }).waitFor();
  await ocRow.getByText("opencode", { exact: true }).waitFor();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - window.innerWidth,
  );
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("body *")]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 8)
      .map((el) => `${el.tagName}.${el.className} "${(el.textContent ?? "").slice(0, 60)}"`),
  );
  expect(overflow, `the inbox fits 390 px; too wide: ${wide.join(" | ")}`).toBeLessThanOrEqual(0);

  // Approve Claude Code's by a click: the command runs.
  await ccRow.getByRole("button", { name: "Approve", exact: true }).click();
  await page.getByRole("button", { name: "Send now" }).click();
  // Deny opencode's with a message.
  await ocRow.getByRole("button", { name: "Deny…" }).click();
  await ocRow.getByLabel("Why (the agent reads this)").fill(reason);
  await ocRow.getByRole("button", { name: "Deny", exact: true }).click();
  await page.getByRole("button", { name: "Send now" }).click();

  const done = await claudeRun;
  expect(done.code, output()).toBe(0);
  expect(fs.existsSync(path.join(cc.dir, `approved-${tag}`))).toBe(true);
  expect(
    ccModel.requests.some((r) =>
      lastToolResults(r).some((t) => t.toolName === "Bash" && t.content.includes(`made-${tag}`)),
    ),
  ).toBe(true);
  await until(
    "the denial's message at opencode's model",
    async () =>
      ocModel.requests.some((r) =>
        lastToolResults(r).some((t) => t.toolName === "bash" && t.content.includes(reason)),
      ),
    120_000,
    output,
  );
  expect(
    ocModel.requests.some((r) =>
      lastToolResults(r).some((t) => t.content.includes(`outside-secret-${tag}`)),
    ),
  ).toBe(false);

  // The audit: who decided what, and when.
  const audit = (
    await pool.query<{
      itemId: number;
      decision: string;
      decidedBy: string;
      message: string | null;
      at: Date;
    }>(
      `SELECT "itemId", decision, "decidedBy", message, "decidedAt" AS at FROM "InboxAudit"
        WHERE "itemId" = ANY($1) ORDER BY "itemId"`,
      [[ccItem.id, ocItem.id].sort((a, b) => a - b)],
    )
  ).rows;
  const byItem = new Map(audit.map((a) => [a.itemId, a]));
  expect(byItem.get(ccItem.id)).toMatchObject({
    decision: "allow",
    decidedBy: "approver person",
    message: null,
  });
  expect(byItem.get(ocItem.id)).toMatchObject({
    decision: "deny",
    decidedBy: "approver person",
    message: reason,
  });
  for (const a of audit) expect(a.at).toBeInstanceOf(Date);
}, 900_000);
