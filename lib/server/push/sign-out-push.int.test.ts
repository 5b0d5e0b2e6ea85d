import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { newSignedInUser, signIn } from "@/test/support/people";
import { withTestServer } from "@/test/support/shared-server";

// Sign-out removes the signing-out person's push subscriptions, with the real server: every one
// made in that sign-in session, plus the device's own endpoint when the browser sends it (made
// in an earlier session); never the person's other sessions' devices, never another person's.

let url: string;
let pool: pg.Pool;
let prisma: PrismaClient;

beforeAll(async () => {
  const server = await withTestServer();
  url = server.url;
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: server.databaseUrl, max: 1 }),
  });
}, 120_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

// A browser's PushSubscription.toJSON(): loopback http endpoints are accepted (tests).
const keys = {
  p256dh: "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
  auth: "tBHItJI5svbpez7KI4CCXg",
};
const endpoint = (name: string) => `http://127.0.0.1:9/push/${name}-${randomUUID().slice(0, 8)}`;
const subscribe = async (cookie: string, ep: string) => {
  const res = await fetch(`${url}/api/push/subscriptions`, {
    method: "POST",
    headers: { cookie, origin: url, "content-type": "application/json" },
    body: JSON.stringify({ endpoint: ep, keys }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
};
const signOut = (cookie: string, body?: unknown) =>
  fetch(`${url}/api/auth/sign-out`, {
    method: "POST",
    headers: { cookie, origin: url, "content-type": "application/json" },
    body: body === undefined ? "{}" : JSON.stringify(body),
  });
const stored = async (endpoints: string[]) =>
  (
    await pool.query<{ endpoint: string }>(
      `SELECT endpoint FROM "PushSubscription" WHERE endpoint = ANY($1) ORDER BY endpoint`,
      [endpoints],
    )
  ).rows
    .map((r) => r.endpoint)
    .sort();

test("sign-out removes that session's subscriptions and the device's own endpoint; the person's other session and other people keep theirs", async () => {
  const ada = await newSignedInUser(prisma, url, "approver");
  const bob = await newSignedInUser(prisma, url, "approver");
  const adaLaptop = await signIn(url, ada.email, ada.password); // a second session of Ada
  const [phone, tablet, laptop, laptop2, bobs] = [
    endpoint("ada-phone"),
    endpoint("ada-tablet"),
    endpoint("ada-laptop"),
    endpoint("ada-laptop2"),
    endpoint("bob"),
  ];
  await subscribe(ada.cookie, phone);
  await subscribe(ada.cookie, tablet);
  await subscribe(adaLaptop, laptop);
  await subscribe(adaLaptop, laptop2);
  await subscribe(bob.cookie, bobs);
  const all = [phone, tablet, laptop, laptop2, bobs];

  // Ada signs out the first session on a device whose endpoint is `laptop` (subscribed earlier
  // in the other session): her first session's two and that endpoint go.
  expect((await signOut(ada.cookie, { pushEndpoint: laptop })).status).toBe(200);
  expect(await stored(all)).toEqual([laptop2, bobs].sort());
  // The signed-out cookie is dead.
  expect((await fetch(`${url}/api/inbox`, { headers: { cookie: ada.cookie } })).status).toBe(401);

  // Sending someone else's endpoint removes nothing of theirs; the session's own go.
  expect((await signOut(adaLaptop, { pushEndpoint: bobs })).status).toBe(200);
  expect(await stored(all)).toEqual([bobs]);

  // No endpoint sent (`{}`, as a browser without a push subscription signs out): the session's go.
  expect((await signOut(bob.cookie)).status).toBe(200);
  expect(await stored(all)).toEqual([]);
}, 60_000);

test("a bad body is refused with 400 invalid_body and signs nothing out; a cross-site sign-out removes nothing", async () => {
  const ada = await newSignedInUser(prisma, url, "approver");
  const phone = endpoint("phone");
  await subscribe(ada.cookie, phone);
  const bad = await signOut(ada.cookie, { pushEndpoint: 42 });
  expect(bad.status).toBe(400);
  const err = (await bad.json()) as { error: { code: string; message: string } };
  expect(err.error.code).toBe("invalid_body");
  expect(err.error.message).toContain("pushEndpoint");
  const notJson = await fetch(`${url}/api/auth/sign-out`, {
    method: "POST",
    headers: { cookie: ada.cookie, origin: url, "content-type": "application/json" },
    body: "{not json",
  });
  expect(notJson.status).toBe(400);
  const evil = await fetch(`${url}/api/auth/sign-out`, {
    method: "POST",
    headers: {
      cookie: ada.cookie,
      origin: "http://evil.example",
      "content-type": "application/json",
    },
    body: "{}",
  });
  expect(evil.status).toBe(403);
  expect(await stored([phone])).toEqual([phone]);
  // Still signed in: the session can read the inbox.
  expect((await fetch(`${url}/api/inbox`, { headers: { cookie: ada.cookie } })).status).toBe(200);
}, 60_000);
