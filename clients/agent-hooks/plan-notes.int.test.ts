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
import { newSignedInUser } from "@/test/support/people";
import { startTestServer, type TestServer } from "@/test/support/server";
import { until } from "@/test/support/until";

// "Approve with notes": the note a person writes when approving a plan reaches the agent. The
// Claude Code hook's ExitPlanMode gate runs as Claude Code runs it (a process fed the
// PermissionRequest event recorded from Claude Code 2.1.328, test/fixtures/agent-hooks) against
// the real server; the approval is made through the plan's route and through the inbox. What the
// agent receives is the hook's stdout: an allow whose `updatedInput.plan` is the plan with the
// note appended. Claude Code (2.1.332, read from its tool code) puts `updatedInput.plan` into the
// ExitPlanMode tool result the model reads ("## Approved Plan (edited by user):" + the plan);
// the real-CLI test (claude-code.real-cli.slow.test.ts) checks the model request itself.

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
  token = (await createToken(prisma, "plan-notes-box")).token;
  server = await startTestServer({ databaseUrl: url });
  cookie = (await newSignedInUser(prisma, server.url, "approver")).cookie;
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await pool?.end();
});

const PLAN = "# Plan\n1. Benchmark C=1..100\n2. Long-context 30K/60K/100K\n";

/** Runs the hook on an ExitPlanMode PermissionRequest; resolves with its stdout. */
function runPlanGate(session: string): Promise<string> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-plan-notes-"));
  const child = spawn(process.execPath, [hook, "claude-code"], {
    env: {
      ...process.env,
      PITWALL_AGENT_STATE_DIR: stateDir,
      PITWALL_AGENT_CONFIG: path.join(stateDir, "none.json"),
      PITWALL_SPOOL_RETRY_S: "0",
      PITWALL_URL: server.url,
      PITWALL_TOKEN: token,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.resume();
  child.stdin.end(
    JSON.stringify({
      session_id: session,
      transcript_path: `/home/dev/.claude/projects/-home-dev-work-bench/${session}.jsonl`,
      cwd: "/home/dev/work/bench",
      permission_mode: "plan",
      hook_event_name: "PermissionRequest",
      tool_name: "ExitPlanMode",
      tool_input: { plan: PLAN, planFilePath: "/home/dev/.claude/plans/bench.md" },
    }),
  );
  return new Promise((resolve) => child.on("exit", () => resolve(stdout)));
}

const planOf = async (session: string) =>
  (
    await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [
      `cc:${session}:plan:1`,
    ])
  ).rows[0]?.id;

const post = (route: string, body: Record<string, unknown>) =>
  fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { cookie, origin: server.url, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

for (const via of ["the plan page's route", "the inbox"] as const) {
  test(`a plan approved with a note through ${via}: the agent receives the plan with the note`, async () => {
    const session = randomUUID();
    const gate = runPlanGate(session);
    await until("the plan is proposed", async () => (await planOf(session)) !== undefined, 15_000);
    const id = (await planOf(session))!;
    const note = `after upload remove local data; max 100 parallel (${via})`;
    const res =
      via === "the inbox"
        ? await post(`/api/inbox/plan-${id}/decision`, { decision: "allow", message: note })
        : await post(`/api/plans/by-id/${id}/decision`, { decision: "approved", comment: note });
    expect(res.status).toBe(200);
    const out = JSON.parse(await gate);
    expect(out.hookSpecificOutput.hookEventName).toBe("PermissionRequest");
    expect(out.hookSpecificOutput.decision.behavior).toBe("allow");
    const input = out.hookSpecificOutput.decision.updatedInput;
    // The plan as proposed, then the note with who wrote it; the rest of the tool input kept.
    expect(input.plan.startsWith(PLAN)).toBe(true);
    expect(input.plan).toContain(`Note from approver person (approved in Pitwall): ${note}`);
    expect(input.planFilePath).toBe("/home/dev/.claude/plans/bench.md");
  }, 30_000);
}

test("a plan approved without a note: the plan goes back unchanged", async () => {
  const session = randomUUID();
  const gate = runPlanGate(session);
  await until("the plan is proposed", async () => (await planOf(session)) !== undefined, 15_000);
  expect(
    (await post(`/api/plans/by-id/${(await planOf(session))!}/decision`, { decision: "approved" }))
      .status,
  ).toBe(200);
  const out = JSON.parse(await gate);
  expect(out.hookSpecificOutput.decision).toEqual({
    behavior: "allow",
    updatedInput: { plan: PLAN, planFilePath: "/home/dev/.claude/plans/bench.md" },
  });
}, 30_000);
