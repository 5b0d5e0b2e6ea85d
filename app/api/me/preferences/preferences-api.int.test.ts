import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { newSignedInUser } from "@/test/support/people";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Per-person display choices over the real server and PostgreSQL: defaults, partial updates,
// validation with codes, each person's own, and the theme rendered on <html> by the server.

let server: SharedTestServer;
let prisma: PrismaClient;

beforeAll(async () => {
  server = await withTestServer();
  const { databaseUrl } = server;
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
});

afterAll(async () => {
  await prisma?.$disconnect();
});

const call = (
  cookie: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  fetch(`${server.url}/api/me/preferences`, {
    method,
    headers: {
      cookie,
      origin: server.url,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("/api/me/preferences", () => {
  test("defaults, partial updates kept apart per person, and the theme on the server-rendered <html>", async () => {
    const me = await newSignedInUser(prisma, server.url, "viewer");
    const other = await newSignedInUser(prisma, server.url, "viewer");
    expect(await (await call(me.cookie, "GET")).json()).toEqual({
      theme: "system",
      timeZone: null,
    });

    const put = await call(me.cookie, "PUT", { theme: "dark" });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ theme: "dark", timeZone: null });
    expect(await (await call(me.cookie, "PUT", { timeZone: "America/New_York" })).json()).toEqual({
      theme: "dark",
      timeZone: "America/New_York",
    });
    expect(await (await call(me.cookie, "GET")).json()).toEqual({
      theme: "dark",
      timeZone: "America/New_York",
    });
    expect(await (await call(other.cookie, "GET")).json()).toEqual({
      theme: "system",
      timeZone: null,
    });

    const html = await (
      await fetch(`${server.url}/runs`, { headers: { cookie: me.cookie } })
    ).text();
    expect(html).toMatch(/<html[^>]*data-theme="dark"/);
    const otherHtml = await (
      await fetch(`${server.url}/runs`, { headers: { cookie: other.cookie } })
    ).text();
    expect(otherHtml).toMatch(/<html[^>]*data-theme="system"/);

    expect(await (await call(me.cookie, "PUT", { timeZone: null })).json()).toEqual({
      theme: "dark",
      timeZone: null,
    });
  });

  test("bad input gets a code and message; workers and strangers are refused", async () => {
    const me = await newSignedInUser(prisma, server.url, "viewer");
    const badZone = await call(me.cookie, "PUT", { timeZone: "Mars/Olympus" });
    expect(badZone.status).toBe(400);
    const err = ((await badZone.json()) as { error: { code: string; message: string } }).error;
    expect(err.code).toBe("invalid_body");
    expect(err.message).toContain("Mars/Olympus");
    expect((await call(me.cookie, "PUT", { theme: "sepia" })).status).toBe(400);
    expect((await call(me.cookie, "PUT", {})).status).toBe(400);
    expect(
      (await call(me.cookie, "PUT", { theme: "dark" }, { origin: "https://evil.example" })).status,
    ).toBe(403);

    const { token } = await createToken(prisma, "prefs-host");
    const worker = await fetch(`${server.url}/api/me/preferences`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(worker.status).toBe(403);
    expect((await fetch(`${server.url}/api/me/preferences`)).status).toBe(401);
  });
});
