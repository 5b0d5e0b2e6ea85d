import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// The server's inbox timeout policy with the real Claude Code hook process: a permission kind set
// to `deny` on expiry (PITWALL_INBOX_ON_EXPIRY=permission=deny) and capped at 6 s
// (PITWALL_INBOX_TIMEOUT_S) comes back to the hook as a denial the model reads, long before the
// hook's own 600 s; a question kind left at the default hands back (status `expired`, no decision).

const hook = path.resolve(import.meta.dirname, "claude-code.mjs");
let server: TestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  const url = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "timeout-box")).token;
  server = await startTestServer({
    databaseUrl: url,
    env: {
      PITWALL_INBOX_TIMEOUT_S: "permission=6,question=5",
      PITWALL_INBOX_ON_EXPIRY: "permission=deny",
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await pool?.end();
});

test("permission=deny: nobody decides within the server's 6 s, the hook answers deny with the timeout message; never allow", async () => {
  const session = randomUUID();
  const event = {
    session_id: session,
    transcript_path: "/tmp/t.jsonl",
    cwd: "/home/dev/work/bench",
    permission_mode: "default",
    hook_event_name: "PermissionRequest",
    tool_name: "Bash",
    tool_input: { command: "make deploy" },
    permission_suggestions: [],
  };
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-perm-"));
  const started = Date.now();
  const child = spawn(process.execPath, [hook, "claude-code"], {
    env: {
      ...process.env,
      PITWALL_URL: server.url,
      PITWALL_TOKEN: token,
      PITWALL_AGENT_STATE_DIR: stateDir,
      PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
      PITWALL_SPOOL_RETRY_S: "0",
      // The hook hands the prompt back when the item is not taken within 2 s (its default); at
      // load 20 the server's answer took longer (exit after 3.1 s, 2026-12-06). This test is
      // about the server's timeout policy, so the hook may wait up to 8 s for the item to open.
      PITWALL_PERMISSION_SEND_TIMEOUT_MS: "8000",
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stdin.end(JSON.stringify(event));
  await new Promise((r) => child.on("exit", r));
  const ms = Date.now() - started;
  expect(ms, stdout).toBeGreaterThanOrEqual(5500);
  expect(ms).toBeLessThan(15_000);
  const out = JSON.parse(stdout);
  expect(out.hookSpecificOutput.decision).toEqual({
    behavior: "deny",
    message:
      "pitwall (timeout) denied this in Pitwall: nobody decided before the inbox timeout, so Pitwall's timeout policy denies it",
  });
  const audit = await pool.query(
    `SELECT a.decision, a."decidedBy" FROM "InboxAudit" a JOIN "InboxItem" i ON i.id = a."itemId" WHERE i.key LIKE $1`,
    [`cc:${session}:perm:%`],
  );
  expect(audit.rows).toEqual([{ decision: "deny", decidedBy: "pitwall (timeout)" }]);
}, 30_000);

test("a question (default: hand back) expires after the server's 5 s although the agent asked for 600 s: the long-poll says expired, no decision", async () => {
  const res = await fetch(`${server.url}/api/inbox`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      key: `q:${randomUUID()}`,
      kind: "question",
      agent: "claude-code",
      summary: "Which dataset?",
      expiresInS: 600,
    }),
  });
  const { id } = (await res.json()) as { id: number };
  const started = Date.now();
  const state = (await (
    await fetch(`${server.url}/api/inbox/${id}/decision?wait=30`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { status: string; decision: unknown };
  expect(state).toMatchObject({ status: "expired", decision: null });
  expect(Date.now() - started).toBeLessThan(10_000);
}, 30_000);
