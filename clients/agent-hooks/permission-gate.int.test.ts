import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { newSignedInUser } from "@/test/support/people";
import { startTestServer, type TestServer } from "@/test/support/server";
import { until } from "@/test/support/until";

// The Claude Code hook's PermissionRequest gate, as Claude Code runs it (a process fed the event
// on stdin), against the real server: the decision made in the inbox comes back in Claude Code's
// hook output format (allow, allow with the edited command, deny with the message); Pitwall down
// or not answering hands the prompt back to the terminal (no output) within 2 s; a timeout too.
// The events follow the PermissionRequest shape recorded from Claude Code 2.1.328
// (test/fixtures/agent-hooks), with a Bash / Edit tool call instead of ExitPlanMode.

const hook = path.resolve(import.meta.dirname, "claude-code.mjs");
let server: TestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;
let cookie: string;

beforeAll(async () => {
  const url = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "gpu-box")).token;
  server = await startTestServer({ databaseUrl: url });
  cookie = (await newSignedInUser(prisma, server.url, "approver")).cookie;
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await pool?.end();
});

function permissionEvent(toolName: string, toolInput: Record<string, unknown>) {
  const session = randomUUID();
  return {
    session,
    event: {
      session_id: session,
      transcript_path: `/home/dev/.claude/projects/-home-dev-work-bench/${session}.jsonl`,
      cwd: "/home/dev/work/bench",
      permission_mode: "default",
      hook_event_name: "PermissionRequest",
      tool_name: toolName,
      tool_input: toolInput,
      permission_suggestions: [],
    },
  };
}

/** Runs the hook like Claude Code does; resolves with its stdout and how long it took. */
function runHook(
  event: unknown,
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; ms: number }> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-perm-"));
  const started = Date.now();
  const child = spawn(process.execPath, [hook, "claude-code"], {
    env: {
      ...process.env,
      PITWALL_AGENT_STATE_DIR: stateDir,
      PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
      PITWALL_SPOOL_RETRY_S: "0",
      // Not what these tests are about: a loaded CI machine took over the default 2 s to answer
      // the item's POST, and the hook handed back to the terminal. The test of that limit sets it.
      PITWALL_PERMISSION_SEND_TIMEOUT_MS: "15000",
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  child.stdin.end(JSON.stringify(event));
  return new Promise((resolve) =>
    child.on("exit", () => resolve({ stdout, stderr, ms: Date.now() - started })),
  );
}

const itemOf = async (session: string) =>
  (
    await pool.query<{ id: number; summary: string; diff: string | null }>(
      `SELECT id, summary, diff FROM "InboxItem" WHERE key LIKE $1`,
      [`cc:${session}:perm:%`],
    )
  ).rows[0];

const decide = (id: number, body: Record<string, unknown>) =>
  fetch(`${server.url}/api/inbox/${id}/decision`, {
    method: "POST",
    headers: { cookie, origin: server.url, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test("a Bash command approved with an edit in the inbox runs as edited: the hook answers allow with updatedInput", async () => {
  const { session, event } = permissionEvent("Bash", {
    command: "pytest",
    description: "Run the tests",
  });
  const run = runHook(event, { PITWALL_URL: server.url, PITWALL_TOKEN: token });
  await until("the item is open", async () => (await itemOf(session)) !== undefined, 15_000);
  const item = (await itemOf(session))!;
  expect(item.summary).toBe("pytest");
  expect(
    (await decide(item.id, { decision: "allow", editedInput: { command: "pytest -x" } })).status,
  ).toBe(200);
  const { stdout } = await run;
  expect(JSON.parse(stdout)).toEqual({
    hookSpecificOutput: {
      hookEventName: "PermissionRequest",
      decision: {
        behavior: "allow",
        updatedInput: { command: "pytest -x", description: "Run the tests" },
      },
    },
  });
}, 30_000);

test("an Edit denied with a message: the hook answers deny with the message; the person saw the diff", async () => {
  const { session, event } = permissionEvent("Edit", {
    file_path: "/home/dev/work/bench/run.py",
    old_string: "n = 1",
    new_string: "n = 100",
  });
  const run = runHook(event, { PITWALL_URL: server.url, PITWALL_TOKEN: token });
  await until("the item is open", async () => (await itemOf(session)) !== undefined, 15_000);
  const item = (await itemOf(session))!;
  expect(item.diff).toContain("-n = 1");
  expect(item.diff).toContain("+n = 100");
  expect((await decide(item.id, { decision: "deny", message: "keep n small" })).status).toBe(200);
  const out = JSON.parse((await run).stdout);
  expect(out.hookSpecificOutput.decision.behavior).toBe("deny");
  expect(out.hookSpecificOutput.decision.message).toContain("keep n small");
}, 30_000);

test("Pitwall down or not answering: no decision output (the terminal asks) within 2 s; never an approval", async () => {
  const silent = http.createServer(() => undefined); // accepts, never answers
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  try {
    for (const url of [
      `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      "http://127.0.0.1:9",
    ]) {
      const { event } = permissionEvent("Bash", { command: "rm -rf build" });
      const { stdout, stderr, ms } = await runHook(event, {
        PITWALL_URL: url,
        PITWALL_TOKEN: token,
        PITWALL_PERMISSION_SEND_TIMEOUT_MS: "2000",
      });
      expect(stdout).toBe("");
      expect(stderr).toMatch(/asking in the terminal/);
      // 2 s for Pitwall plus Node's start.
      expect(ms).toBeLessThan(3500);
    }
  } finally {
    silent.close();
  }
}, 30_000);

test("no decision before the timeout: no output (the terminal asks) and the item expires", async () => {
  const { session, event } = permissionEvent("Bash", { command: "make deploy" });
  const { stdout, ms } = await runHook(event, {
    PITWALL_URL: server.url,
    PITWALL_TOKEN: token,
    PITWALL_PERMISSION_TIMEOUT_S: "5",
  });
  expect(stdout).toBe("");
  expect(ms).toBeGreaterThanOrEqual(4500);
  const id = (await itemOf(session))!.id;
  const res = await decide(id, { decision: "allow" });
  expect(res.status).toBe(409);
}, 30_000);

test("inbox rules answer without waiting: an allow rule of the project, a deny rule (whose message the model reads) that wins", async () => {
  const rule = (body: Record<string, unknown>) =>
    fetch(`${server.url}/api/inbox/rules`, {
      method: "POST",
      headers: { cookie, origin: server.url, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  expect(
    (await rule({ effect: "allow", tool: "Bash", pattern: "mkdir -p out/*", project: "bench" }))
      .status,
  ).toBe(201);
  expect(
    (await rule({ effect: "allow", tool: "Bash", pattern: "git *", project: "bench" })).status,
  ).toBe(201);
  expect(
    (
      await rule({
        effect: "deny",
        tool: "Bash",
        pattern: "git push --force*",
        message: "force pushes need a review",
      })
    ).status,
  ).toBe(201);

  const allowed = permissionEvent("Bash", {
    command: "mkdir -p out/run-1",
    description: "Make the output folder",
  });
  const a = await runHook(allowed.event, { PITWALL_URL: server.url, PITWALL_TOKEN: token });
  expect(JSON.parse(a.stdout)).toEqual({
    hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
  });
  // Decided by the POST's answer: no long-poll, no 2 s retry pause.
  expect(a.ms).toBeLessThan(3000);

  const denied = permissionEvent("Bash", { command: "git push --force origin main" });
  const d = await runHook(denied.event, { PITWALL_URL: server.url, PITWALL_TOKEN: token });
  const out = JSON.parse(d.stdout);
  expect(out.hookSpecificOutput.decision.behavior).toBe("deny");
  expect(out.hookSpecificOutput.decision.message).toMatch(
    /^rule #\d+ \(deny Bash\(git push --force\*\) everywhere\) denied this in Pitwall: force pushes need a review$/,
  );
  const audit = await pool.query(
    `SELECT a.decision, a.rule FROM "InboxAudit" a JOIN "InboxItem" i ON i.id = a."itemId" WHERE i.key LIKE $1`,
    [`cc:${denied.session}:perm:%`],
  );
  expect(audit.rows).toEqual([
    { decision: "deny", rule: "deny Bash(git push --force*) everywhere" },
  ]);
}, 30_000);
