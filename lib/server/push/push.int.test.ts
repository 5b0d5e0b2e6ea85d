import { createPublicKey, randomUUID, verify } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import type { PushPayload } from "@/lib/api/push";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { newSignedInUser } from "@/test/support/people";
import {
  newBrowserKeys,
  startPushService,
  type BrowserKeys,
  type PushService,
} from "@/test/support/push-service";
import { startTestServer, type TestServer } from "@/test/support/server";
import { until } from "@/test/support/until";

import { signActionToken } from "./action-token";

// Web Push of inbox items through the real server and a local push service: a subscribed
// approver's browser receives the item encrypted to its own keys (decrypted here as a browser
// would) with a valid VAPID signature; a subscription the push service calls gone (410) is
// removed; the action token of a notification button decides the item once, without a session,
// and the audit names the person; reused, expired, forged and demoted tokens are refused with
// their own codes. Own server and database: pushes go to every subscriber of the database.

let db: string;
let server: TestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let push: PushService;
let token: string;
let alice: { cookie: string; email: string };
let bob: { cookie: string; email: string };
let viewer: { cookie: string; email: string };

beforeAll(async () => {
  db = await createTestDatabase();
  server = await startTestServer({ databaseUrl: db, env: { PITWALL_NOTIFY_INTERVAL_MS: "300" } });
  pool = new pg.Pool({ connectionString: db, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db, max: 1 }) });
  push = await startPushService();
  token = (await createToken(prisma, "push-box")).token;
  alice = await newSignedInUser(prisma, server.url, "approver");
  bob = await newSignedInUser(prisma, server.url, "admin");
  viewer = await newSignedInUser(prisma, server.url, "viewer");
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await push?.close();
  await prisma?.$disconnect();
  await pool?.end();
});

const asPerson = (cookie: string) => ({
  cookie,
  origin: server.url,
  "content-type": "application/json",
});

function subscribe(cookie: string, endpoint: string, browser: BrowserKeys): Promise<Response> {
  return fetch(`${server.url}/api/push/subscriptions`, {
    method: "POST",
    headers: asPerson(cookie),
    body: JSON.stringify({ endpoint, expirationTime: null, keys: browser.keys }),
  });
}

async function openItem(kind: "permission" | "question", summary: string): Promise<number> {
  const res = await fetch(`${server.url}/api/inbox`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      key: `push:${randomUUID()}`,
      kind,
      agent: "claude-code",
      project: "pitwall",
      gitBranch: "main",
      toolName: kind === "permission" ? "Bash" : "AskUserQuestion",
      summary,
      input: { command: summary },
      expiresInS: 600,
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/** The payloads pushed to `endpoint` so far, decrypted with `browser`'s keys. */
function payloads(endpoint: string, browser: BrowserKeys): PushPayload[] {
  return push.received
    .filter((r) => r.endpoint === endpoint)
    .map((r) => JSON.parse(browser.decrypt(r.body).toString("utf8")) as PushPayload);
}

const action = (t: string) =>
  fetch(`${server.url}/api/push/action`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: t }),
  });

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, ...body.error };
}

/** Checks the VAPID `Authorization: vapid t=<ES256 JWT>, k=<key>` header against the server's key. */
function checkVapid(header: string | undefined, publicKey: string, audience: string): void {
  const m = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(header ?? "");
  expect(m, header).not.toBeNull();
  const [, h, p, s, k] = m!;
  expect(k).toBe(publicKey);
  const point = Buffer.from(publicKey, "base64url");
  const key = createPublicKey({
    format: "jwk",
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    },
  });
  const signed = verify(
    "sha256",
    Buffer.from(`${h}.${p}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(s!, "base64url"),
  );
  expect(signed).toBe(true);
  const claims = JSON.parse(Buffer.from(p!, "base64url").toString()) as {
    aud: string;
    exp: number;
  };
  expect(claims.aud).toBe(audience);
  expect(claims.exp * 1000).toBeGreaterThan(Date.now());
}

test("subscriptions: approvers and admins only, endpoints checked, a person removes only their own", async () => {
  const browser = newBrowserKeys();
  expect((await subscribe(viewer.cookie, push.endpoint("viewer"), browser)).status).toBe(403);
  const bad = await errorOf(await subscribe(alice.cookie, "http://push.example.com/x", browser));
  expect(bad).toMatchObject({ status: 400, code: "invalid_body" });
  expect(bad.message).toMatch(/https URL/);
  const badKey = await fetch(`${server.url}/api/push/subscriptions`, {
    method: "POST",
    headers: asPerson(alice.cookie),
    body: JSON.stringify({ endpoint: push.endpoint("k"), keys: { p256dh: "short", auth: "x" } }),
  });
  expect((await errorOf(badKey)).code).toBe("invalid_body");

  const mine = push.endpoint(`mine-${randomUUID()}`);
  expect((await subscribe(bob.cookie, mine, browser)).status).toBe(201);
  const del = (cookie: string) =>
    fetch(`${server.url}/api/push/subscriptions`, {
      method: "DELETE",
      headers: asPerson(cookie),
      body: JSON.stringify({ endpoint: mine }),
    }).then((r) => r.json());
  expect(await del(alice.cookie)).toEqual({ removed: 0 });
  expect(await del(bob.cookie)).toEqual({ removed: 1 });
});

test("a new permission is pushed encrypted to each subscribed decider with Approve / Deny; a gone subscription is removed; a token decides once, without a session, audited by name", async () => {
  const aliceBrowser = newBrowserKeys();
  const aliceEndpoint = push.endpoint(`alice-${randomUUID()}`);
  const goneBrowser = newBrowserKeys();
  const goneEndpoint = push.endpoint(`gone-${randomUUID()}`, 410);
  expect((await subscribe(alice.cookie, aliceEndpoint, aliceBrowser)).status).toBe(201);
  expect((await subscribe(bob.cookie, goneEndpoint, goneBrowser)).status).toBe(201);
  const { publicKey } = (await (
    await fetch(`${server.url}/api/push/key`, { headers: asPerson(alice.cookie) })
  ).json()) as { publicKey: string };

  const id = await openItem("permission", "pytest -x tests/");
  const pushed = await until("the push to alice", async () =>
    payloads(aliceEndpoint, aliceBrowser).find((p) => p.id === String(id)),
  );
  expect(pushed).toMatchObject({
    v: 1,
    id: String(id),
    kind: "permission",
    agent: "Claude Code",
    host: "push-box",
    summary: "pytest -x tests/",
    title: "Claude Code on push-box: permission Bash",
    body: "pytest -x tests/\nproject pitwall · branch main",
    url: `/inbox?item=${id}`,
    tag: `inbox-${id}`,
  });
  expect(pushed.actions.map((a) => [a.action, a.title])).toEqual([
    ["allow", "Approve"],
    ["deny", "Deny"],
  ]);
  const request = push.received.find((r) => r.endpoint === aliceEndpoint)!;
  expect(request.headers["content-encoding"]).toBe("aes128gcm");
  expect(request.headers.urgency).toBe("high");
  expect(Number(request.headers.ttl)).toBeGreaterThan(0);
  checkVapid(request.headers.authorization, publicKey, new URL(aliceEndpoint).origin);
  // Announced once: the notifier loop (every 300 ms here) does not push it again.
  await new Promise((r) => setTimeout(r, 1500));
  expect(payloads(aliceEndpoint, aliceBrowser).filter((p) => p.id === String(id))).toHaveLength(1);

  // The push service said 410 to bob's subscription: it is gone from the database.
  expect(push.received.some((r) => r.endpoint === goneEndpoint)).toBe(true);
  await until("the gone subscription removed", async () => {
    const n = await pool.query(`SELECT 1 FROM "PushSubscription" WHERE endpoint = $1`, [
      goneEndpoint,
    ]);
    return n.rowCount === 0;
  });
  const kept = await pool.query(`SELECT "lastPushAt" FROM "PushSubscription" WHERE endpoint = $1`, [
    aliceEndpoint,
  ]);
  expect(kept.rows[0]?.lastPushAt).toBeInstanceOf(Date);

  // Forged and malformed tokens, before anything is decided.
  const allow = pushed.actions.find((a) => a.action === "allow")!.token;
  const deny = pushed.actions.find((a) => a.action === "deny")!.token;
  const [claims, sig] = allow.split(".") as [string, string];
  const forgedClaims = JSON.parse(Buffer.from(claims, "base64url").toString()) as { a: string };
  forgedClaims.a = "deny";
  const forged = `${Buffer.from(JSON.stringify(forgedClaims)).toString("base64url")}.${sig}`;
  expect(await errorOf(await action(forged))).toMatchObject({ status: 401, code: "token_invalid" });
  expect(await errorOf(await action("not-a-token"))).toMatchObject({
    status: 401,
    code: "token_invalid",
  });
  const noBody = await fetch(`${server.url}/api/push/action`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tok: allow }),
  });
  expect((await errorOf(noBody)).code).toBe("invalid_body");

  // Approve, with no cookie at all: the token is the credential.
  const ok = await action(allow);
  expect(ok.status).toBe(200);
  expect(await ok.json()).toMatchObject({
    id: String(id),
    decision: "allow",
    decidedBy: "approver person",
  });
  expect(await errorOf(await action(allow))).toMatchObject({ status: 409, code: "token_used" });
  const late = await errorOf(await action(deny));
  expect(late).toMatchObject({ status: 409, code: "conflict" });
  expect(late.message).toMatch(/already decided by approver person/);

  // The agent's long-poll and the audit see the person's decision.
  const agent = (await (
    await fetch(`${server.url}/api/inbox/${id}/decision`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { status: string; decision: { decision: string; decidedBy: string } };
  expect(agent).toMatchObject({
    status: "decided",
    decision: { decision: "allow", decidedBy: "approver person" },
  });
  const audit = await pool.query(
    `SELECT decision, "decidedBy" FROM "InboxAudit" WHERE "itemId" = $1`,
    [id],
  );
  expect(audit.rows).toEqual([{ decision: "allow", decidedBy: "approver person" }]);
}, 60_000);

test("expired tokens, tokens of a person who lost the role, and a deny that reaches the agent with its reason", async () => {
  const secret = (
    await pool.query<{ value: string }>(
      `SELECT value FROM "ServerSecret" WHERE name = 'push-action'`,
    )
  ).rows[0]?.value;
  expect(secret).toBeTruthy();
  const id = await openItem("permission", "rm -rf build/");
  const users = await pool.query<{ id: string; email: string }>(
    `SELECT id, email FROM "User" WHERE email = ANY($1)`,
    [[alice.email, viewer.email]],
  );
  const userId = (email: string) => users.rows.find((u) => u.email === email)!.id;
  const past = new Date(Date.now() - 60_000);
  const expired = signActionToken(
    secret!,
    { item: String(id), action: "allow", userId: userId(alice.email), expiresAt: past },
    new Date(Date.now() - 120_000),
  ).token;
  const expiredErr = await errorOf(await action(expired));
  expect(expiredErr).toMatchObject({ status: 401, code: "token_expired" });
  const soon = new Date(Date.now() + 300_000);
  const asViewer = signActionToken(secret!, {
    item: String(id),
    action: "allow",
    userId: userId(viewer.email),
    expiresAt: soon,
  }).token;
  expect(await errorOf(await action(asViewer))).toMatchObject({ status: 403, code: "forbidden" });

  const deny = signActionToken(secret!, {
    item: String(id),
    action: "deny",
    userId: userId(alice.email),
    expiresAt: soon,
  }).token;
  expect((await action(deny)).status).toBe(200);
  const agent = (await (
    await fetch(`${server.url}/api/inbox/${id}/decision`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { decision: { decision: string; message: string } };
  expect(agent.decision).toMatchObject({
    decision: "deny",
    message: "denied from a Pitwall notification",
  });
});

test("a question is pushed without decision buttons (it needs an answer), opening the item", async () => {
  const browser = newBrowserKeys();
  const endpoint = push.endpoint(`q-${randomUUID()}`);
  expect((await subscribe(alice.cookie, endpoint, browser)).status).toBe(201);
  const id = await openItem("question", "Which database?");
  const pushed = await until("the question's push", async () =>
    payloads(endpoint, browser).find((p) => p.id === String(id)),
  );
  expect(pushed).toMatchObject({ kind: "question", actions: [], url: `/inbox?item=${id}` });
});

test("a proposed plan is pushed with Approve / Reject; Reject from the notification rejects it in the person's name", async () => {
  const browser = newBrowserKeys();
  const endpoint = push.endpoint(`plan-${randomUUID()}`);
  expect((await subscribe(bob.cookie, endpoint, browser)).status).toBe(201);
  const key = `push-plan-${randomUUID()}`;
  const ingest = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify([
      {
        v: 1,
        id: randomUUID(),
        type: "plan.propose",
        plan: key,
        title: "Sweep C=1..64",
        items: [{ content: "warm up" }, { content: "sweep" }],
      },
    ]),
  });
  expect(ingest.status).toBe(200);
  const planId = (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key]))
    .rows[0]!.id;
  const pushed = await until("the plan's push", async () =>
    payloads(endpoint, browser).find((p) => p.id === `plan-${planId}`),
  );
  expect(pushed).toMatchObject({
    kind: "plan",
    host: "push-box",
    summary: "Sweep C=1..64",
    url: `/plans/${planId}`,
  });
  expect(pushed.actions.map((a) => [a.action, a.title])).toEqual([
    ["allow", "Approve"],
    ["deny", "Reject"],
  ]);
  const res = await action(pushed.actions.find((a) => a.action === "deny")!.token);
  expect(await res.json()).toMatchObject({ id: `plan-${planId}`, decision: "deny" });
  const decided = await pool.query(
    `SELECT p.status::text AS status, d."decidedBy", d.comment FROM "Plan" p JOIN "PlanDecision" d ON d."planId" = p.id WHERE p.id = $1`,
    [planId],
  );
  expect(decided.rows).toEqual([
    {
      status: "rejected",
      decidedBy: "admin person",
      comment: "denied from a Pitwall notification",
    },
  ]);
});
