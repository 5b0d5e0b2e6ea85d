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
import { newSignedInUser } from "@/test/support/people";
import { until } from "@/test/support/until";

// A timeout that hands back to the terminal, with the real Claude Code TUI (pinned version,
// interactive, default permission mode) in a node-pty pseudo-terminal: the server's permission
// timeout is cut to 20 s (PITWALL_INBOX_TIMEOUT_S; expiry keeps its default, hand back), nobody
// decides in Pitwall, the item expires and the hook answers nothing; Claude Code's own permission
// dialog is still there, the person answers it with Enter and the command runs. The item is
// marked expired (audit: "pitwall") and a late decision is refused with 409 `expired`.

const TIMEOUT_S = 20;
const fx = withAgentFixture("tui-timeout-box", {
  PITWALL_INBOX_TIMEOUT_S: `permission=${TIMEOUT_S}`,
});

test("interactive TUI: nobody decides before the inbox timeout, the prompt is handed back, answered in the terminal the command runs; the item is expired and a late decision refused", async () => {
  const { server, pool, prisma } = fx.bed;
  const tag = randomUUID().slice(0, 8);
  const command = `mkdir handed-back-${tag} && echo handed-${tag}`;
  const { dir, env } = installedProject(fx.bed, "claude-code", {
    branch: "tui-timeout",
    prefix: "cc-tui-timeout",
  });
  const model = await fx.startModel((req): ScriptedReply => {
    if (!offersTools(req)) return { text: "TUI timeout test" };
    const last = lastToolResults(req).at(-1);
    if (!last) return { toolCalls: [{ name: "Bash", input: { command, description: "Make" } }] };
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

  const item = await until(
    "the Bash waiting in the inbox",
    async () =>
      (
        await pool.query<{ id: number; createdAt: Date; expiresAt: Date }>(
          `SELECT id, "createdAt", "expiresAt" FROM "InboxItem" WHERE summary = $1 AND status = 'waiting'`,
          [command],
        )
      ).rows[0],
    240_000,
    terminal,
  );
  // The server capped the hook's own 600 s wait at the permission kind's timeout.
  expect(item.expiresAt.getTime() - item.createdAt.getTime()).toBe(TIMEOUT_S * 1000);
  const expired = await until(
    "the item expired in Pitwall",
    async () =>
      (
        await pool.query<{ status: string; decision: string | null }>(
          `SELECT status::text, decision FROM "InboxItem" WHERE id = $1 AND status <> 'waiting'`,
          [item.id],
        )
      ).rows[0],
    (TIMEOUT_S + 60) * 1000,
    terminal,
  );
  expect(expired).toEqual({ status: "expired", decision: null });
  // Nothing ran on its own: expiry never approves.
  expect(fs.existsSync(path.join(dir, `handed-back-${tag}`))).toBe(false);

  // The prompt is Claude Code's again: its own dialog waits in the terminal; the person takes "Yes".
  await until(
    "Claude Code's own dialog",
    async () => /proceed\?/i.test(run.plain()),
    60_000,
    terminal,
  );
  await new Promise((r) => setTimeout(r, 2000));
  expect(fs.existsSync(path.join(dir, `handed-back-${tag}`))).toBe(false);
  run.type("\r");
  await until(
    "the command answered in the terminal ran",
    async () => fs.existsSync(path.join(dir, `handed-back-${tag}`)),
    60_000,
    terminal,
  );
  await until(
    "its output at the model",
    async () => modelSawToolResult(model, "Bash", `handed-${tag}`, { ok: true }),
    60_000,
    terminal,
  );

  // Marked, no longer decidable: the audit says it expired; a late decision is refused clearly.
  const audit = await pool.query<{ decision: string; decidedBy: string }>(
    `SELECT decision, "decidedBy" FROM "InboxAudit" WHERE "itemId" = $1`,
    [item.id],
  );
  expect(audit.rows).toEqual([{ decision: "expired", decidedBy: "pitwall" }]);
  const approver = await newSignedInUser(prisma, server.url, "approver");
  const late = await fetch(`${server.url}/api/inbox/${item.id}/decision`, {
    method: "POST",
    headers: { cookie: approver.cookie, origin: server.url, "content-type": "application/json" },
    body: JSON.stringify({ decision: "allow" }),
  });
  expect(late.status).toBe(409);
  const body = (await late.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("expired");
  expect(body.error.message).toContain(`inbox item ${item.id} expired at`);
}, 600_000);
