import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
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
import { newSignedInUser } from "@/test/support/people";
import { until } from "@/test/support/until";

// The real Claude Code CLI (pinned version) with our hook installed by `pitwall agent install`,
// against a scripted model server and a real Pitwall (commands that need a permission in the
// default mode: `echo` is allowed without asking): a Bash permission approved in the inbox
// with an edited command runs as edited; the next one, denied with a message, is not run and
// the model receives the message. Inbox rules decide without anyone: allowed runs, denied doesn't.

const fx = withAgentFixture("claude-box");

test("Bash approved with an edited command runs as edited; a denial's message reaches the model", async () => {
  const { bed } = fx;
  const { server, pool, prisma } = bed;
  const claude = fx.clis.claude;
  const tag = randomUUID().slice(0, 8);
  const { dir, env } = installedProject(bed, "claude-code", {
    branch: "perm-test",
    prefix: "cc-perm",
  });
  const model = await startModelServer(async (req): Promise<ScriptedReply> => {
    if (!offersTools(req)) return { text: "Permission test" };
    const results = lastToolResults(req);
    const last = results.at(-1);
    if (!last)
      return {
        toolCalls: [
          {
            name: "Bash",
            input: { command: `mkdir proposed-${tag}`, description: "Make a folder" },
          },
        ],
      };
    if (last.toolName === "Bash" && last.content.includes(`edited-${tag}`))
      return {
        toolCalls: [
          { name: "Bash", input: { command: `touch removed-${tag}`, description: "Touch a file" } },
        ],
      };
    return { text: `FINAL: ${last.content.slice(0, 400)}` };
  });
  const approver = await newSignedInUser(prisma, server.url, "approver");
  const decide = (id: number, body: Record<string, unknown>) =>
    fetch(`${server.url}/api/inbox/${id}/decision`, {
      method: "POST",
      headers: { cookie: approver.cookie, origin: server.url, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const waiting = async (summary: string) =>
    (
      await pool.query<{ id: number; toolName: string; gitBranch: string | null }>(
        `SELECT id, "toolName", "gitBranch" FROM "InboxItem" WHERE summary = $1 AND status = 'waiting'`,
        [summary],
      )
    ).rows[0];
  try {
    const run = runClaude({
      claude,
      cwd: dir,
      env: { ...claudeOfflineEnv(model.url), ...env },
      prompt: "say hello",
      askStdio: true,
      timeoutMs: 240_000,
    });
    const output = outputOf(run);
    const first = await until(
      "the first Bash waits in the inbox",
      () => waiting(`mkdir proposed-${tag}`),
      150_000,
      output,
    );
    expect(first).toMatchObject({ toolName: "Bash", gitBranch: "perm-test" });
    expect(
      (
        await decide(first.id, {
          decision: "allow",
          editedInput: { command: `mkdir edited-${tag} && echo edited-${tag}` },
        })
      ).status,
    ).toBe(200);
    const second = await until(
      "the second Bash waits",
      () => waiting(`touch removed-${tag}`),
      120_000,
      output,
    );
    expect(
      (await decide(second.id, { decision: "deny", message: `not in this folder ${tag}` })).status,
    ).toBe(200);
    const done = await run;
    expect(done.code).toBe(0);
    // The edited command ran (its output reached the model), not the proposed one; the denied one did not run.
    expect(fs.existsSync(path.join(dir, `edited-${tag}`))).toBe(true);
    expect(fs.existsSync(path.join(dir, `proposed-${tag}`))).toBe(false);
    expect(
      model.requests.some((r) =>
        lastToolResults(r).some(
          (t) => t.toolName === "Bash" && t.content.includes(`edited-${tag}`),
        ),
      ),
    ).toBe(true);
    expect(fs.existsSync(path.join(dir, `removed-${tag}`))).toBe(false);
    expect(
      model.requests.some((r) =>
        lastToolResults(r).some(
          (t) => t.toolName === "Bash" && t.content.includes(`not in this folder ${tag}`),
        ),
      ),
    ).toBe(true);
  } finally {
    await model.close();
  }
}, 420_000);

test("inbox rules decide without anyone: an allow rule of the project runs the command, a deny rule's message reaches the model", async () => {
  const { bed } = fx;
  const { server, pool, prisma } = bed;
  const claude = fx.clis.claude;
  const tag = randomUUID().slice(0, 8);
  const { dir, env } = installedProject(bed, "claude-code", {
    branch: "rule-test",
    prefix: "cc-rule",
  });
  const approver = await newSignedInUser(prisma, server.url, "approver");
  const rule = (body: Record<string, unknown>) =>
    fetch(`${server.url}/api/inbox/rules`, {
      method: "POST",
      headers: { cookie: approver.cookie, origin: server.url, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  // The hook names the project after the agent's folder.
  expect(
    (
      await rule({
        effect: "allow",
        tool: "Bash",
        pattern: "mkdir ruled-*",
        project: path.basename(dir),
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await rule({
        effect: "deny",
        tool: "Bash",
        pattern: "touch *",
        project: path.basename(dir),
        message: `no touching ${tag}`,
      })
    ).status,
  ).toBe(201);
  const model = await startModelServer(async (req): Promise<ScriptedReply> => {
    if (!offersTools(req)) return { text: "Rule test" };
    const results = lastToolResults(req);
    if (results.length === 0)
      return {
        toolCalls: [
          { name: "Bash", input: { command: `mkdir ruled-${tag}`, description: "Make a folder" } },
        ],
      };
    if (!results.some((r) => r.content.includes("no touching")))
      return {
        toolCalls: [
          { name: "Bash", input: { command: `touch touched-${tag}`, description: "Touch a file" } },
        ],
      };
    return { text: `FINAL: ${results.at(-1)!.content.slice(0, 400)}` };
  });
  try {
    const done = await runClaude({
      claude,
      cwd: dir,
      env: { ...claudeOfflineEnv(model.url), ...env },
      prompt: "say hello",
      askStdio: true,
      timeoutMs: 240_000,
    });
    expect(done.code).toBe(0);
    // The allowed command ran, the denied one did not and the model read the rule's message.
    expect(fs.existsSync(path.join(dir, `ruled-${tag}`))).toBe(true);
    expect(fs.existsSync(path.join(dir, `touched-${tag}`))).toBe(false);
    expect(
      model.requests.some((r) =>
        lastToolResults(r).some(
          (t) => t.toolName === "Bash" && t.content.includes(`no touching ${tag}`),
        ),
      ),
    ).toBe(true);
    // Both were decided by the rules the moment they were asked: nobody decided, nothing waited.
    const items = await pool.query<{
      summary: string;
      status: string;
      decision: string;
      rule: string;
    }>(
      `SELECT i.summary, i.status::text, a.decision, a.rule FROM "InboxItem" i JOIN "InboxAudit" a ON a."itemId" = i.id WHERE i.summary LIKE $1 ORDER BY i.id`,
      [`%${tag}`],
    );
    expect(items.rows).toEqual([
      {
        summary: `mkdir ruled-${tag}`,
        status: "decided",
        decision: "allow",
        rule: `allow Bash(mkdir ruled-*) in ${path.basename(dir)}`,
      },
      {
        summary: `touch touched-${tag}`,
        status: "decided",
        decision: "deny",
        rule: `deny Bash(touch *) in ${path.basename(dir)}`,
      },
    ]);
  } finally {
    await model.close();
  }
}, 420_000);
