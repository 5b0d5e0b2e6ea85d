import { randomUUID } from "node:crypto";
import http from "node:http";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createInboxItem } from "@/lib/server/repositories/inbox-agent";
import { createToken, verifyToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";
import { until } from "@/test/support/until";

// New inbox items reach the webhook as they appear, with their kind and link, once: the real
// server with PITWALL_WEBHOOK_URL at a real local HTTP receiver. An item the creating route
// announces, and one that only the notifier loop finds (opened straight in the database, as if
// the route had died before announcing), are each posted exactly once; an item a rule decided at
// once is not posted; the command never is.

let receiver: http.Server;
const received: Array<{ text: string; kind?: string; link?: string }> = [];
let server: TestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push(JSON.parse(body) as { text: string });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const port = (receiver.address() as { port: number }).port;
  const databaseUrl = await createTestDatabase();
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 1 }) });
  token = (await createToken(prisma, "hook-box")).token;
  server = await startTestServer({
    databaseUrl,
    env: {
      PITWALL_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
      PITWALL_PUBLIC_URL: "https://pitwall.example",
      PITWALL_NOTIFY_INTERVAL_MS: "300",
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  receiver?.close();
  await prisma?.$disconnect();
  await pool?.end();
});

const open = async (body: Record<string, unknown>) => {
  const res = await fetch(`${server.url}/api/inbox`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ agent: "claude-code", expiresInS: 600, ...body }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; status: string };
};
const postsFor = (id: number) =>
  received.filter((p) => p.link === `https://pitwall.example/inbox?item=${id}`);

test("a permission opened by the hook is posted once as it appears: kind, link, agent, host, tool, project; never the command", async () => {
  const tag = randomUUID().slice(0, 8);
  const item = await open({
    key: `perm-${tag}`,
    kind: "permission",
    toolName: "Bash",
    summary: `rm -rf /data/run-${tag}`,
    input: { command: `rm -rf /data/run-${tag}` },
    project: "pitwall",
    gitBranch: "main",
  });
  expect(item.status).toBe("waiting");
  const [post] = await until(
    "the webhook post",
    async () => postsFor(item.id).length > 0 && postsFor(item.id),
    20_000,
  );
  expect(post).toEqual({
    kind: "permission",
    link: `https://pitwall.example/inbox?item=${item.id}`,
    text: `:bell: *Claude Code* on *hook-box* waits for a decision: permission Bash in project pitwall (branch main) · <https://pitwall.example/inbox?item=${item.id}|open the item>`,
  });
  expect(post!.text).not.toContain(tag);
  // Several notifier ticks later it is still the only post of that item.
  await new Promise((r) => setTimeout(r, 1500));
  expect(postsFor(item.id)).toHaveLength(1);
}, 60_000);

test("a question and a notice are posted with their kinds; an item nobody announced is posted by the notifier loop, once", async () => {
  const tag = randomUUID().slice(0, 8);
  const question = await open({
    key: `q-${tag}`,
    kind: "question",
    summary: `Which dataset ${tag}?`,
    input: {
      questions: [
        {
          question: "Which?",
          header: "Data",
          options: [{ label: "a" }, { label: "b" }],
          multiSelect: false,
        },
      ],
    },
  });
  // Opened straight in the database: no route announced it, the notifier loop must.
  const principal = (await verifyToken(prisma, token))!;
  const notice = await createInboxItem(pool, principal, {
    key: `n-${tag}`,
    kind: "notice",
    agent: "claude-code",
    summary: "Claude is waiting for your input",
    expiresInS: 600,
  });
  const [q] = await until(
    "the question's post",
    async () => postsFor(question.id).length > 0 && postsFor(question.id),
    20_000,
  );
  expect(q).toMatchObject({ kind: "question" });
  expect(q!.text).toContain("waits for a decision: question");
  const [n] = await until(
    "the notice's post",
    async () => postsFor(notice.id).length > 0 && postsFor(notice.id),
    20_000,
  );
  expect(n).toMatchObject({
    kind: "notice",
    link: `https://pitwall.example/inbox?item=${notice.id}`,
  });
  expect(n!.text).toContain("waits for input in its terminal: notice");
  await new Promise((r) => setTimeout(r, 1500));
  expect(postsFor(question.id)).toHaveLength(1);
  expect(postsFor(notice.id)).toHaveLength(1);
}, 60_000);

test("an item a rule decides at once is not posted (nobody needs to act)", async () => {
  const tag = randomUUID().slice(0, 8);
  // Written straight to the table: with an https PITWALL_PUBLIC_URL the session cookie is
  // Secure-only, so no person can sign in over this test's plain http.
  await pool.query(
    `INSERT INTO "InboxRule" (effect, agent, tool, pattern, "createdBy", "createdAt", "updatedAt")
     VALUES ('allow', 'any', 'Bash', $1, 'test', now(), now())`,
    [`ls ${tag}*`],
  );
  const item = await open({
    key: `ruled-${tag}`,
    kind: "permission",
    toolName: "Bash",
    summary: `ls ${tag}-dir`,
    input: { command: `ls ${tag}-dir` },
  });
  expect(item.status).toBe("decided");
  await new Promise((r) => setTimeout(r, 1500));
  expect(postsFor(item.id)).toHaveLength(0);
}, 60_000);
