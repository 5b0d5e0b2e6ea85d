import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { openNotice } from "@/clients/agent-hooks/lib/notice.mjs";
import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { InboxListView } from "@/lib/view-models/inbox";
import { newSignedInUser } from "@/test/support/people";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Questions (Claude Code's AskUserQuestion) and notices ("waiting for your input") through the
// real server: a question is answered only with an answer for each of its questions, which the
// agent's long-poll receives; a notice opened by the hook's own code is listed with its context,
// cannot be decided, is replaced by the session's next notice and is gone when the session works
// again; the audit says why.

let server: SharedTestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;
let alice: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "qn-box")).token;
  alice = (await newSignedInUser(prisma, server.url, "approver")).cookie;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

const worker = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
const activity = (session: string, state: string) =>
  fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify([
      {
        v: 1,
        id: randomUUID(),
        type: "session.activity",
        session,
        source: "claude-code",
        state,
        ts: Date.now(),
        cwd: "/home/ana/sweeps",
        project: "sweeps",
        gitBranch: "decode",
      },
      ...(state === "idle"
        ? [
            {
              v: 1,
              id: randomUUID(),
              type: "session.todos",
              session,
              source: "claude-code",
              seq: 1,
              ts: Date.now(),
              items: [{ content: "Run the sweep", status: "in_progress" }],
            },
          ]
        : []),
    ]),
  });
const decide = (id: number, body: Record<string, unknown>) =>
  fetch(`${server.url}/api/inbox/${id}/decision`, {
    method: "POST",
    headers: { cookie: alice, origin: server.url, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const list = async () =>
  (await (
    await fetch(`${server.url}/api/inbox`, { headers: { cookie: alice } })
  ).json()) as InboxListView;

test("a question is answered only with an answer for each question; the agent's long-poll gets the answers", async () => {
  const session = `cc-${randomUUID()}`;
  expect((await activity(session, "idle")).status).toBe(200);
  const questions = [
    {
      question: "Which range?",
      header: "Range",
      multiSelect: false,
      options: [
        { label: "C=1..32", description: "" },
        { label: "C=1..64", description: "" },
      ],
    },
    {
      question: "Which flags?",
      header: "Flags",
      multiSelect: false,
      options: [
        { label: "none", description: "" },
        { label: "MTP", description: "" },
      ],
    },
  ];
  const res = await fetch(`${server.url}/api/inbox`, {
    method: "POST",
    headers: worker(),
    body: JSON.stringify({
      key: `cc:${session}:q:1`,
      kind: "question",
      agent: "claude-code",
      session,
      toolName: "AskUserQuestion",
      summary: "Which range? · Which flags?",
      input: { questions },
      expiresInS: 600,
    }),
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: number };
  const entry = (await list()).items.find((i) => i.id === String(id))!;
  expect(entry).toMatchObject({
    kind: "question",
    input: { questions },
    todoInProgress: "Run the sweep",
  });

  for (const [body, text] of [
    [{ decision: "allow" }, "editedInput: {answers"],
    [
      { decision: "allow", editedInput: { answers: { "Which range?": "C=1..64" } } },
      'no answer for: "Which flags?"',
    ],
    [
      {
        decision: "allow",
        editedInput: {
          answers: { "Which range?": "C=1..64", "Which flags?": "MTP" },
          command: "x",
        },
      },
      "nothing else",
    ],
    [
      { decision: "allow", alwaysAllow: { pattern: "*", project: null } },
      "alwaysAllow does not apply",
    ],
  ] as const) {
    const bad = await decide(id, body);
    expect(bad.status).toBe(400);
    const err = (await bad.json()) as { error: { code: string; message: string } };
    expect(err.error.code).toBe("invalid_body");
    expect(err.error.message).toContain(text);
  }
  const answers = { "Which range?": "C=1..64", "Which flags?": "MTP with 3 draft tokens" };
  expect((await decide(id, { decision: "allow", editedInput: { answers } })).status).toBe(200);
  const polled = await fetch(`${server.url}/api/inbox/${id}/decision?wait=5`, {
    headers: worker(),
  });
  expect(await polled.json()).toMatchObject({
    status: "decided",
    decision: { decision: "allow", editedInput: { answers } },
  });
});

test("a 'waiting for your input' notice from the hook is listed with its context, cannot be decided, is replaced by the next one and is gone when the session works again", async () => {
  const session = `cc-${randomUUID()}`;
  expect((await activity(session, "idle")).status).toBe(200);
  const cfg = { url: server.url, token };
  const event = {
    hook_event_name: "Notification",
    session_id: session,
    cwd: "/home/ana/sweeps",
    notification_type: "idle_prompt",
    message: "Claude is waiting for your input",
  };
  // A permission prompt's notification is no notice (the PermissionRequest is its own item).
  expect(await openNotice(cfg, { ...event, notification_type: "permission_prompt" })).toBe(false);
  expect(await openNotice(cfg, event, { nowMs: 1, gitBranch: "decode" })).toBe(true);
  const notices = async () =>
    (await list()).items.filter((i) => i.kind === "notice" && i.session?.key === session);
  const [first] = await notices();
  expect(first).toMatchObject({
    agent: "claude-code",
    host: "qn-box",
    project: "sweeps",
    gitBranch: "decode",
    summary: "Claude is waiting for your input",
    todoInProgress: "Run the sweep",
  });
  expect(first!.waitingMs).toBeGreaterThanOrEqual(0);
  const refused = await decide(Number(first!.id), { decision: "allow" });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
    "is a notice",
  );
  // The next idle notification replaces the first: the session waits once.
  expect(await openNotice(cfg, event, { nowMs: 2, gitBranch: "decode" })).toBe(true);
  const now = await notices();
  expect(now.map((n) => n.id)).not.toContain(first!.id);
  expect(now).toHaveLength(1);
  // The person typed in the terminal: the session works again and the notice is gone.
  expect((await activity(session, "working")).status).toBe(200);
  expect(await notices()).toEqual([]);
  const audit = (
    await pool.query<{ itemId: number; decision: string; message: string }>(
      `SELECT "itemId", decision, message FROM "InboxAudit" WHERE "itemId" = ANY($1) ORDER BY "itemId"`,
      [[Number(first!.id), Number(now[0]!.id)]],
    )
  ).rows;
  expect(audit).toEqual([
    {
      itemId: Number(first!.id),
      decision: "answered_in_terminal",
      message: "the session moved on",
    },
    {
      itemId: Number(now[0]!.id),
      decision: "answered_in_terminal",
      message: "the session moved on",
    },
  ]);
});
