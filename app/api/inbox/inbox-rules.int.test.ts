import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { InboxRuleView } from "@/lib/view-models/inbox";
import { createTestDatabase } from "@/test/support/db";
import { newSignedInUser } from "@/test/support/people";
import { startTestServer, type TestServer } from "@/test/support/server";

// Inbox rules through the real server: approvers write them (viewers and tokens may not), the
// server applies them when a hook opens a permission (the POST answer carries the decision; deny
// wins over allow), every application is audited with the rule, and "always allow this here"
// writes a rule that also settles the same command already waiting. Rules are global, so this
// file has its own database and server.

let server: TestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;
let approver: string;
let viewer: string;

beforeAll(async () => {
  const url = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "gpu-box")).token;
  server = await startTestServer({ databaseUrl: url });
  approver = (await newSignedInUser(prisma, server.url, "approver")).cookie;
  viewer = (await newSignedInUser(prisma, server.url, "viewer")).cookie;
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await pool?.end();
});

const worker = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
const asPerson = (cookie: string) => ({
  cookie,
  origin: server.url,
  "content-type": "application/json",
});
const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });

type Opened = {
  id: number;
  status: string;
  decision: { decision: string; message: string | null; decidedBy: string } | null;
};

/** Opens a Bash permission like the Claude Code hook does. */
async function openBash(command: string, project: string, agent = "claude-code"): Promise<Opened> {
  const res = await send("POST", "/api/inbox", worker(), {
    key: `cc:${randomUUID()}:perm:1`,
    kind: "permission",
    agent,
    toolName: "Bash",
    summary: command,
    input: { command, description: "x" },
    cwd: `/home/ana/${project}`,
    project,
    expiresInS: 600,
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Opened;
}

test("rules CRUD: approvers write with validation, viewers and worker tokens only read", async () => {
  const body = { effect: "allow", tool: "Bash", pattern: "make lint*", project: "crud" };
  expect((await send("POST", "/api/inbox/rules", asPerson(viewer), body)).status).toBe(403);
  expect((await send("POST", "/api/inbox/rules", worker(), body)).status).toBe(403);
  const bad = await send("POST", "/api/inbox/rules", asPerson(approver), {
    effect: "approve",
    tool: "Bash(x)",
    pattern: "",
  });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ error: { code: "invalid_body" } });

  const created = await send("POST", "/api/inbox/rules", asPerson(approver), body);
  expect(created.status).toBe(201);
  const { rule } = (await created.json()) as { rule: { id: number } };
  const listed = (await (await send("GET", "/api/inbox/rules", asPerson(viewer))).json()) as {
    rules: InboxRuleView[];
  };
  expect(listed.rules.find((r) => r.id === rule.id)).toMatchObject({
    effect: "allow",
    agent: "any",
    project: "crud",
    label: "allow Bash(make lint*) in crud",
    createdBy: "approver person",
    appliedCount: 0,
  });

  const put = await send("PUT", `/api/inbox/rules/${rule.id}`, asPerson(approver), {
    ...body,
    effect: "deny",
    message: "lint in CI",
  });
  expect(put.status).toBe(200);
  expect(((await put.json()) as { rule: { effect: string } }).rule.effect).toBe("deny");
  expect((await send("PUT", `/api/inbox/rules/${rule.id}`, asPerson(viewer), body)).status).toBe(
    403,
  );
  expect((await send("DELETE", `/api/inbox/rules/${rule.id}`, asPerson(viewer))).status).toBe(403);
  expect((await send("DELETE", `/api/inbox/rules/${rule.id}`, asPerson(approver))).status).toBe(
    204,
  );
  expect((await send("DELETE", `/api/inbox/rules/${rule.id}`, asPerson(approver))).status).toBe(
    404,
  );
  expect((await send("DELETE", "/api/inbox/rules/abc", asPerson(approver))).status).toBe(400);
});

test("allow Bash(pytest *) in pitwall decides at once there; deny Bash(rm -rf *) everywhere wins over allow; others wait; each application is audited", async () => {
  const allow = (await (
    await send("POST", "/api/inbox/rules", asPerson(approver), {
      effect: "allow",
      tool: "Bash",
      pattern: "pytest *",
      project: "pitwall",
    })
  ).json()) as { rule: { id: number } };
  await send("POST", "/api/inbox/rules", asPerson(approver), {
    effect: "allow",
    tool: "Bash",
    pattern: "*",
    project: "scratch",
  });
  const deny = (await (
    await send("POST", "/api/inbox/rules", asPerson(approver), {
      effect: "deny",
      tool: "Bash",
      pattern: "rm -rf *",
      message: "never delete recursively",
    })
  ).json()) as { rule: { id: number } };

  const allowed = await openBash("pytest -x tests", "pitwall");
  expect(allowed).toMatchObject({
    status: "decided",
    decision: {
      decision: "allow",
      message: null,
      decidedBy: `rule #${allow.rule.id} (allow Bash(pytest *) in pitwall)`,
    },
  });
  // The same command in another project, or chained with something else, waits for a person.
  expect(await openBash("pytest -x tests", "other")).toMatchObject({
    status: "waiting",
    decision: null,
  });
  expect(await openBash("pytest -x && curl x | sh", "pitwall")).toMatchObject({
    status: "waiting",
    decision: null,
  });
  // Deny wins over the allow-everything rule of project scratch.
  const denied = await openBash("rm -rf /data/ckpt", "scratch");
  expect(denied).toMatchObject({
    status: "decided",
    decision: { decision: "deny", message: "never delete recursively" },
  });
  expect(denied.decision!.decidedBy).toContain(`rule #${deny.rule.id}`);
  expect(await openBash("ls /data", "scratch")).toMatchObject({
    status: "decided",
    decision: { decision: "allow" },
  });

  // The long-poll gives the same decision; the item never shows as waiting.
  const state = (await (
    await send("GET", `/api/inbox/${denied.id}/decision`, worker())
  ).json()) as { status: string; decision: { decision: string } };
  expect(state).toMatchObject({ status: "decided", decision: { decision: "deny" } });
  const waiting = (await (await send("GET", "/api/inbox", asPerson(viewer))).json()) as {
    items: Array<{ id: string }>;
  };
  expect(waiting.items.some((i) => i.id === String(denied.id) || i.id === String(allowed.id))).toBe(
    false,
  );

  const audit = await pool.query(
    `SELECT "itemId", decision, message, "decidedBy", "ruleId", rule FROM "InboxAudit" WHERE "itemId" = ANY($1) ORDER BY "itemId"`,
    [[allowed.id, denied.id]],
  );
  expect(audit.rows).toEqual([
    {
      itemId: allowed.id,
      decision: "allow",
      message: null,
      decidedBy: `rule #${allow.rule.id} (allow Bash(pytest *) in pitwall)`,
      ruleId: allow.rule.id,
      rule: "allow Bash(pytest *) in pitwall",
    },
    {
      itemId: denied.id,
      decision: "deny",
      message: "never delete recursively",
      decidedBy: `rule #${deny.rule.id} (deny Bash(rm -rf *) everywhere)`,
      ruleId: deny.rule.id,
      rule: "deny Bash(rm -rf *) everywhere",
    },
  ]);
  const rules = (await (await send("GET", "/api/inbox/rules", asPerson(viewer))).json()) as {
    rules: InboxRuleView[];
  };
  expect(rules.rules.find((r) => r.id === deny.rule.id)?.appliedCount).toBe(1);
  // A re-sent key returns the same decided item without a second audit row.
  await send("DELETE", `/api/inbox/rules/${deny.rule.id}`, asPerson(approver));
  expect(
    (await pool.query(`SELECT rule FROM "InboxAudit" WHERE "itemId" = $1`, [denied.id])).rows,
  ).toEqual([{ rule: "deny Bash(rm -rf *) everywhere" }]);
});

test('"always allow this here" writes the rule, approves the item and settles the same command already waiting; viewers cannot', async () => {
  const project = `p-${randomUUID().slice(0, 6)}`;
  const first = await openBash("npm run build", project);
  const second = await openBash("npm run build", project);
  const elsewhere = await openBash("npm run build", `${project}-b`);
  const poll = send("GET", `/api/inbox/${second.id}/decision?wait=30`, worker()).then((r) =>
    r.json(),
  );
  const body = { decision: "allow", alwaysAllow: { pattern: "npm run build", project } };
  expect(
    (await send("POST", `/api/inbox/${first.id}/decision`, asPerson(viewer), body)).status,
  ).toBe(403);
  // A worker token may open items and read their decision, never decide.
  expect((await send("POST", `/api/inbox/${first.id}/decision`, worker(), body)).status).toBe(403);
  const bad = await send("POST", `/api/inbox/${first.id}/decision`, asPerson(approver), {
    decision: "deny",
    alwaysAllow: { pattern: "x", project: null },
  });
  expect(bad.status).toBe(400);
  expect(
    (await send("POST", `/api/inbox/${first.id}/decision`, asPerson(approver), body)).status,
  ).toBe(200);

  expect(await poll).toMatchObject({
    status: "decided",
    decision: {
      decision: "allow",
      decidedBy: expect.stringMatching(/^rule #\d+ \(allow Bash\(npm run build\) in p-/),
    },
  });
  expect(
    (await (await send("GET", `/api/inbox/${elsewhere.id}/decision`, worker())).json()) as {
      status: string;
    },
  ).toMatchObject({ status: "waiting" });
  const audit = await pool.query(
    `SELECT decision, "decidedBy", rule FROM "InboxAudit" WHERE "itemId" = $1`,
    [first.id],
  );
  expect(audit.rows).toEqual([
    {
      decision: "allow",
      decidedBy: "approver person",
      rule: expect.stringMatching(/^wrote rule #\d+: allow Bash\(npm run build\) in p-/),
    },
  ]);
  // The next request of the same command there is allowed without asking.
  expect(await openBash("npm run build", project)).toMatchObject({
    status: "decided",
    decision: { decision: "allow" },
  });
});
