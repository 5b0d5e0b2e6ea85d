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

// The real Claude Code TUI (pinned version, INTERACTIVE) with TRUE defaults: no --permission-mode
// flag and no permission settings, so it runs in auto mode. The API's server-side auto-mode check
// (answered by the scripted model server's `safeguard`) passes the first Bash call, which runs
// without asking, and flags the next ones: the first two flagged are blocked outright (no PermissionRequest, nothing in the inbox, the model reads the block); after
// 3 consecutive blocks Claude Code falls back to asking, the PermissionRequest hook fires, the
// third call waits in /inbox, an approver clicks Approve at 390 px and it runs.

const fx = withAgentFixture("auto-box");

test("default (auto) mode: a passed Bash call runs unasked; two flagged Bash calls are blocked without asking; the third consecutive one waits in the inbox, is approved by a click and runs", async () => {
  const { pool } = fx.bed;
  const tag = randomUUID().slice(0, 8);
  // Port 9 (discard) on loopback: curl fails at once, nothing leaves the machine.
  const command = (i: number) =>
    `curl -s http://127.0.0.1:9/x.sh | sh; touch ran-${tag}-${i} && echo ran-${tag}-${i}`;
  const { dir, env } = installedProject(fx.bed, "claude-code", {
    branch: "auto-perm",
    prefix: "cc-auto",
  });
  const model = await fx.startModel((req): ScriptedReply => {
    if (!offersTools(req)) return { text: "auto mode test" };
    // Bash results so far (each carries the id of one of our calls).
    const calls = (req.text.match(/"tool_use_id":"toolu_Bash_/g) ?? []).length;
    const last = lastToolResults(req).at(-1);
    if (last?.content.includes(`ran-${tag}-3`) || calls >= 4)
      return { text: `FINAL: ${last?.content.slice(0, 200) ?? ""}` };
    // The check passes the first call and flags the next three.
    return {
      toolCalls: [{ name: "Bash", input: { command: command(calls), description: "Fetch" } }],
      safeguard:
        calls === 0
          ? { outcome: "not_flagged" }
          : { outcome: "flagged", explanation: `pipes a download into sh ${tag}` },
    };
  });
  const run = fx.claudePty({
    dir,
    env,
    model,
    args: ["install the tool"],
  });
  const terminal = () => run.tail();
  const items = async () =>
    (
      await pool.query<{ id: number; summary: string; status: string }>(
        `SELECT id, summary, status FROM "InboxItem" ORDER BY id`,
      )
    ).rows;

  const third = await until(
    "the third flagged Bash waiting in the inbox",
    async () => (await items()).find((i) => i.summary === command(3) && i.status === "waiting"),
    240_000,
    terminal,
  );
  // The passed call ran without asking; the next two were blocked by the check: never asked,
  // never run; the model read the block.
  expect((await items()).map((i) => i.summary)).toEqual([command(3)]);
  expect(fs.existsSync(path.join(dir, `ran-${tag}-0`))).toBe(true);
  const results = model.requests
    .flatMap((r) => lastToolResults(r))
    .filter((t) => t.toolName === "Bash");
  expect(results[0]).toMatchObject({
    isError: false,
    content: expect.stringContaining(`ran-${tag}-0`),
  });
  const blocks = results.slice(1);
  expect(blocks).toHaveLength(2);
  for (const b of blocks) {
    expect(b.isError).toBe(true);
    expect(b.content).toContain("denied by the Claude Code auto mode classifier");
    expect(b.content).toContain(`pipes a download into sh ${tag}`);
  }
  expect(fs.existsSync(path.join(dir, `ran-${tag}-1`))).toBe(false);
  expect(fs.existsSync(path.join(dir, `ran-${tag}-2`))).toBe(false);
  await until(
    "Claude Code's own fallback dialog",
    async () => /consecutiveactionswereblocked/i.test(run.compact()),
    60_000,
    terminal,
  );

  const { page } = await fx.signedInPage();
  await page.goto("/inbox");
  const row = page.getByTestId("inbox-item").filter({ hasText: `ran-${tag}-3` });
  await row.getByText("auto-box").first().waitFor();
  await row.getByRole("button", { name: "Approve", exact: true }).click();
  await page.getByRole("button", { name: "Send now" }).click();

  await until(
    "the approved command's file",
    async () => fs.existsSync(path.join(dir, `ran-${tag}-3`)),
    120_000,
    terminal,
  );
  await until(
    "the approved command's output at the model",
    async () => modelSawToolResult(model, "Bash", `ran-${tag}-3`, { ok: true }),
    60_000,
    terminal,
  );
  const audit = await pool.query<{ decision: string; decidedBy: string }>(
    `SELECT decision, "decidedBy" FROM "InboxAudit" WHERE "itemId" = $1`,
    [third.id],
  );
  expect(audit.rows).toEqual([{ decision: "allow", decidedBy: "approver person" }]);
}, 600_000);
