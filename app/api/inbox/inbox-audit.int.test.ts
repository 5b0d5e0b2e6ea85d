import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import Papa from "papaparse";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { InboxAuditEntry } from "@/lib/view-models/inbox";
import { createTestDatabase } from "@/test/support/db";
import { newSignedInUser } from "@/test/support/people";
import { startTestServer, type TestServer } from "@/test/support/server";

// The inbox audit through the real server: a person's decision, a rule's application and a plan
// decision all show (who or which rule, item, agent, host, session, decision, message, when),
// per session too, as JSON and CSV; approvers and admins read it, viewers and worker tokens get
// 403. Rules are global, so this file has its own database and server.

let server: TestServer;
let prisma: PrismaClient;
let token: string;
let approver: string;
let admin: string;
let viewer: string;

beforeAll(async () => {
  const url = await createTestDatabase();
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "audit-box")).token;
  server = await startTestServer({ databaseUrl: url });
  approver = (await newSignedInUser(prisma, server.url, "approver")).cookie;
  admin = (await newSignedInUser(prisma, server.url, "admin")).cookie;
  viewer = (await newSignedInUser(prisma, server.url, "viewer")).cookie;
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
});

const worker = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
const asPerson = (cookie: string) => ({
  cookie,
  origin: server.url,
  "content-type": "application/json",
});
const post = (path: string, headers: Record<string, string>, body: unknown) =>
  fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });

test("decisions, rule applications and plan decisions are in the audit, per session, as JSON and CSV; viewers and tokens may not read it", async () => {
  const session = `cc-${randomUUID()}`;
  await post("/api/ingest", { authorization: `Bearer ${token}` }, [
    {
      v: 1,
      id: randomUUID(),
      type: "session.activity",
      session,
      source: "claude-code",
      state: "waiting",
      ts: Date.now(),
      cwd: "/home/ana/pitwall",
      project: "pitwall",
      title: "Audit session",
    },
  ]);
  const open = async (command: string) =>
    (await (
      await post("/api/inbox", worker(), {
        key: `cc:${session}:perm:${randomUUID()}`,
        kind: "permission",
        agent: "claude-code",
        session,
        toolName: "Bash",
        summary: command,
        input: { command },
        cwd: "/home/ana/pitwall",
        project: "pitwall",
        expiresInS: 600,
      })
    ).json()) as { id: number };
  const person = await open("=cmd|' /C calc'!A0");
  expect(
    (
      await post(`/api/inbox/${person.id}/decision`, asPerson(approver), {
        decision: "deny",
        message: "not, on this box",
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await post("/api/inbox/rules", asPerson(admin), {
        effect: "allow",
        tool: "Bash",
        pattern: "ls *",
        project: "pitwall",
      })
    ).status,
  ).toBe(201);
  const byRule = await open("ls -la");
  const planKey = `cc:${session}:plan:1`;
  await post("/api/ingest", { authorization: `Bearer ${token}` }, [
    {
      v: 1,
      id: randomUUID(),
      type: "plan.propose",
      plan: planKey,
      session,
      title: "Audit plan",
      items: [{ content: "x" }],
      expiresInS: 600,
    },
  ]);
  const planId = (await prisma.plan.findFirstOrThrow({ where: { key: planKey } })).id;
  expect(
    (await post(`/api/inbox/plan-${planId}/decision`, asPerson(approver), { decision: "allow" }))
      .status,
  ).toBe(200);
  const other = (await (
    await post("/api/inbox", worker(), {
      key: `x:${randomUUID()}`,
      kind: "permission",
      agent: "opencode",
      toolName: "bash",
      summary: "ls",
      input: { command: "make" },
      expiresInS: 600,
    })
  ).json()) as { id: number };
  await post(`/api/inbox/${other.id}/decision`, asPerson(admin), { decision: "allow" });

  const sessionId = (await prisma.agentSession.findFirstOrThrow({ where: { key: session } })).id;
  const res = await fetch(`${server.url}/api/inbox/audit?session=${sessionId}`, {
    headers: asPerson(admin),
  });
  expect(res.status).toBe(200);
  const { entries } = (await res.json()) as { entries: InboxAuditEntry[] };
  // Newest first; only this session's.
  expect(entries.map((e) => [e.itemId, e.decision, e.byRule])).toEqual([
    [`plan-${planId}`, "approved", false],
    [String(byRule.id), "allow", true],
    [String(person.id), "deny", false],
  ]);
  expect(entries[2]).toMatchObject({
    kind: "permission",
    decidedBy: "approver person",
    message: "not, on this box",
    agent: "claude-code",
    host: "audit-box",
    project: "pitwall",
    toolName: "Bash",
    session: { id: sessionId, key: session, title: "Audit session" },
  });
  expect(entries[1]).toMatchObject({ rule: "allow Bash(ls *) in pitwall", summary: "ls -la" });
  expect(entries[1]!.decidedBy).toMatch(/^rule #\d+/);
  expect(Date.parse(entries[0]!.decidedAt)).toBeGreaterThanOrEqual(
    Date.parse(entries[1]!.decidedAt),
  );

  const csv = await fetch(`${server.url}/api/inbox/audit?format=csv&session=${sessionId}`, {
    headers: asPerson(approver),
  });
  expect(csv.status).toBe(200);
  expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
  expect(csv.headers.get("content-disposition")).toContain(
    `pitwall-inbox-audit-session-${sessionId}.csv`,
  );
  const parsed = Papa.parse<Record<string, string>>((await csv.text()).trim(), { header: true });
  expect(parsed.data).toHaveLength(3);
  expect(parsed.data[2]).toMatchObject({
    decision: "deny",
    decidedBy: "approver person",
    message: "not, on this box",
    host: "audit-box",
    session,
    tool: "Bash",
  });
  // A command that looks like a spreadsheet formula is written so it never runs as one.
  expect(parsed.data[2]!.summary).toBe("'=cmd|' /C calc'!A0");
  expect(parsed.data[1]!.rule).toBe("allow Bash(ls *) in pitwall");

  // The unfiltered audit has the other agent's decision too.
  const all = (await (
    await fetch(`${server.url}/api/inbox/audit`, { headers: asPerson(approver) })
  ).json()) as { entries: InboxAuditEntry[] };
  expect(all.entries.some((e) => e.itemId === String(other.id) && e.agent === "opencode")).toBe(
    true,
  );

  expect((await fetch(`${server.url}/api/inbox/audit`, { headers: asPerson(viewer) })).status).toBe(
    403,
  );
  expect(
    (
      await fetch(`${server.url}/api/inbox/audit?format=csv`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).status,
  ).toBe(403);
  expect((await fetch(`${server.url}/api/inbox/audit`)).status).toBe(401);
  const bad = await fetch(`${server.url}/api/inbox/audit?format=xml&limit=0`, {
    headers: asPerson(approver),
  });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ error: { code: "invalid_query" } });
  // The session page shows its decisions to approvers, not to viewers.
  const page = await (
    await fetch(`${server.url}/sessions/${sessionId}`, { headers: { cookie: approver } })
  ).text();
  expect(page).toContain("Inbox decisions");
  expect(page).toContain("not, on this box");
  const viewerPage = await (
    await fetch(`${server.url}/sessions/${sessionId}`, { headers: { cookie: viewer } })
  ).text();
  expect(viewerPage).not.toContain("Inbox decisions");
});
