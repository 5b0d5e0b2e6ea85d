import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import pino from "pino";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import type { PushPayload } from "@/lib/api/push";
import { createInboxItem } from "@/lib/server/repositories/inbox-agent";
import { savePushSubscription } from "@/lib/server/repositories/push";
import { createToken, verifyToken, type TokenPrincipal } from "@/lib/server/repositories/tokens";
import { createUser } from "@/lib/server/repositories/users";
import { createTestDatabase } from "@/test/support/db";
import { newBrowserKeys, startPushService } from "@/test/support/push-service";

import { startNotifier, type Notification } from "./notifier";

// Inbox timeouts and escalation in the notifier loop, against a real database with an injected
// clock: an item still waiting after its kind's minutes is posted once more (never its command);
// at expiry a kind set to `deny` is denied by Pitwall with an audit row, the default hands back
// (expired) — nothing is ever approved. An escalated item is also pushed again to subscribed
// approvers (a local push service, payload decrypted as a browser would).

let pool: pg.Pool;
let prisma: PrismaClient;
let principal: TokenPrincipal;

beforeAll(async () => {
  const url = await createTestDatabase();
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  principal = (await verifyToken(prisma, (await createToken(prisma, "esc-box")).token))!;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

const open = (kind: "permission" | "question", at: Date, expiresInS: number) =>
  createInboxItem(
    pool,
    principal,
    {
      key: randomUUID(),
      kind,
      agent: "claude-code",
      toolName: kind === "permission" ? "Bash" : undefined,
      summary: "DROP TABLE runs",
      input: { command: "psql -c 'DROP TABLE runs'" },
      project: "pitwall",
      gitBranch: "main",
      expiresInS,
    },
    at,
    {
      timeoutS: {},
      onExpiry: {},
      escalateAfterMin: {},
    },
  );

test("an item waiting past its escalation minutes is re-posted once, without its command; expiry denies or hands back per kind", async () => {
  let clock = Date.parse("2026-12-06T00:00:00Z");
  const sent: Notification[] = [];
  const notifier = startNotifier({
    pool,
    log: pino({ level: "silent" }),
    publicUrl: "https://pitwall.example",
    intervalMs: 3_600_000,
    now: () => new Date(clock),
    deliver: async (n) => void sent.push(n),
    inboxPolicy: {
      timeoutS: {},
      onExpiry: { permission: "deny" },
      escalateAfterMin: { permission: 10 },
    },
  });
  try {
    const perm = await open("permission", new Date(clock), 1800);
    const question = await open("question", new Date(clock), 1200);
    clock += 9 * 60_000;
    expect((await notifier.tick()).filter((n) => n.kind === "inbox")).toEqual([]);
    clock += 2 * 60_000;
    const escalated = (await notifier.tick()).filter((n) => n.kind === "inbox");
    expect(escalated).toHaveLength(1);
    expect(escalated[0]!.text).toBe(
      `:hourglass_flowing_sand: *Claude Code* on *esc-box* still waits for a decision after 11 min: permission Bash in project pitwall (branch main) · <https://pitwall.example/inbox?item=${perm.id}|open the item>`,
    );
    expect(escalated[0]).toMatchObject({
      itemKind: "permission",
      link: `https://pitwall.example/inbox?item=${perm.id}`,
    });
    expect(escalated[0]!.text).not.toContain("DROP");
    expect(sent.filter((n) => n.kind === "inbox")).toHaveLength(1);
    clock += 5 * 60_000;
    expect((await notifier.tick()).filter((n) => n.kind === "inbox")).toEqual([]);

    // 20 min: the question (default: hand back to the terminal) expires; 30 min: the permission is denied.
    clock = Date.parse("2026-12-06T00:20:00Z");
    await notifier.tick();
    clock = Date.parse("2026-12-06T00:30:00Z");
    await notifier.tick();
    const rows = await pool.query(
      `SELECT id, status::text, decision, "decidedBy" FROM "InboxItem" WHERE id = ANY($1) ORDER BY id`,
      [[perm.id, question.id]],
    );
    expect(rows.rows).toEqual([
      { id: perm.id, status: "decided", decision: "deny", decidedBy: "pitwall (timeout)" },
      { id: question.id, status: "expired", decision: null, decidedBy: null },
    ]);
    const audit = await pool.query(
      `SELECT "itemId", decision, "decidedBy" FROM "InboxAudit" WHERE "itemId" = ANY($1) ORDER BY "itemId"`,
      [[perm.id, question.id]],
    );
    expect(audit.rows).toEqual([
      { itemId: perm.id, decision: "deny", decidedBy: "pitwall (timeout)" },
      { itemId: question.id, decision: "expired", decidedBy: "pitwall" },
    ]);
  } finally {
    notifier.stop();
  }
});

test("the server's timeout caps the agent's own wait", async () => {
  const at = new Date();
  const item = await createInboxItem(
    pool,
    principal,
    {
      key: randomUUID(),
      kind: "permission",
      agent: "opencode",
      toolName: "bash",
      summary: "ls",
      expiresInS: 600,
    },
    at,
    { timeoutS: { permission: 60 }, onExpiry: {}, escalateAfterMin: {} },
  );
  const row = await pool.query<{ expiresAt: Date }>(
    `SELECT "expiresAt" FROM "InboxItem" WHERE id = $1`,
    [item.id],
  );
  expect(row.rows[0]!.expiresAt.getTime() - at.getTime()).toBe(60_000);
});

test("an escalated item is pushed again to subscribed approvers, as a reminder that alerts", async () => {
  const email = `esc-${randomUUID().slice(0, 8)}@example.com`;
  await createUser(prisma, { email, name: "Esc Approver", role: "approver" });
  const userId = (
    await pool.query<{ id: string }>(`SELECT id FROM "User" WHERE email = $1`, [email])
  ).rows[0]!.id;
  const push = await startPushService();
  const browser = newBrowserKeys();
  const endpoint = push.endpoint("esc");
  await savePushSubscription(pool, userId, { endpoint, keys: browser.keys });
  let clock = Date.now();
  const notifier = startNotifier({
    pool,
    log: pino({ level: "silent" }),
    publicUrl: "https://pitwall.example",
    intervalMs: 3_600_000,
    now: () => new Date(clock),
    deliver: async () => undefined,
    inboxPolicy: { timeoutS: {}, onExpiry: {}, escalateAfterMin: { permission: 10 } },
  });
  try {
    const item = await open("permission", new Date(clock), 1800);
    await notifier.tick();
    clock += 11 * 60_000;
    await notifier.tick();
    await notifier.tick();
    const pushes = push.received
      .filter((r) => r.endpoint === endpoint)
      .map((r) => JSON.parse(browser.decrypt(r.body).toString("utf8")) as PushPayload)
      .filter((p) => p.id === String(item.id));
    // The announcement, then one reminder with the same tag (it replaces the notification) that alerts again.
    expect(pushes.map((p) => [p.renotify, p.body.split("\n")[0]])).toEqual([
      [false, "DROP TABLE runs"],
      [true, "Still waiting after 11 min"],
    ]);
    expect(pushes[1]).toMatchObject({ tag: `inbox-${item.id}`, url: `/inbox?item=${item.id}` });
    expect(pushes[1]!.actions.map((a) => a.action)).toEqual(["allow", "deny"]);
  } finally {
    notifier.stop();
    await push.close();
  }
});
