import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";

import { PrismaClient } from "@/generated/prisma/client";
import { LIVE_SESSION_ENDED } from "@/lib/server/auth/live-sessions";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { newSignedInUser } from "@/test/support/people";
import { startTestServer, type TestServer } from "@/test/support/server";

// Revocation takes effect at once on every instance: two servers share one database, the
// sockets are open on `other`, the revocation happens through the CLI (straight into the
// database) or through the admin API of `first`. The periodic re-check is set to an hour, so
// only the announced path (pg_notify → every instance's LISTEN) can close them in time.

const projectDir = path.resolve(import.meta.dirname, "../../..");
const run = promisify(execFile);
/** Revocation must close the sockets within this (the backstop re-check is an hour away). */
const WITHIN_MS = 5_000;

let first: TestServer;
let other: TestServer;
let prisma: PrismaClient;
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  const env = { PITWALL_LIVE_RECHECK_S: "3600" };
  [first, other] = await Promise.all([
    startTestServer({ databaseUrl, env }),
    startTestServer({ databaseUrl, env }),
  ]);
});

afterAll(async () => {
  await Promise.all([first?.stop(), other?.stop()]);
  await prisma?.$disconnect();
});

/** Opens `path` on `server` with `headers`; resolves the open socket and a promise of its close code. */
async function open(server: TestServer, wsPath: string, headers: Record<string, string>) {
  const ws = new WebSocket(`${server.url.replace("http", "ws")}${wsPath}`, { headers });
  const closed = new Promise<{ code: number }>((resolve) =>
    ws.once("close", (code) => resolve({ code })),
  );
  await new Promise<void>((resolve, reject) =>
    ws.once("open", () => resolve()).once("error", reject),
  );
  return { ws, closed };
}

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`not closed within ${ms} ms`)), ms),
    ),
  ]);

describe("revoking a worker token", () => {
  test("via the CLI: its open ingest (1008) and live (4401) sockets on another instance close within seconds; other tokens' stay open", async () => {
    const revoked = await createToken(prisma, "rev-host");
    const kept = await createToken(prisma, "kept-host");
    const ingest = await open(other, "/ws/ingest", { authorization: `Bearer ${revoked.token}` });
    const live = await open(other, "/ws/live", { authorization: `Bearer ${revoked.token}` });
    const keptIngest = await open(other, "/ws/ingest", { authorization: `Bearer ${kept.token}` });

    // The socket works before the revocation.
    const acked = new Promise((resolve) =>
      ingest.ws.once("message", (d) => resolve(JSON.parse(String(d)))),
    );
    ingest.ws.send(JSON.stringify({ v: 1, id: randomUUID(), type: "heartbeat" }));
    expect(await acked).toMatchObject({ type: "ack" });

    const res = await run(
      process.execPath,
      [path.join(projectDir, "bin", "pitwall.mjs"), "token", "revoke", String(revoked.id)],
      {
        cwd: projectDir,
        env: { ...process.env, DATABASE_URL: databaseUrl },
      },
    );
    expect(res.stdout).toContain(`revoked token #${revoked.id}`);

    const [ingestClosed, liveClosed] = await within(
      Promise.all([ingest.closed, live.closed]),
      WITHIN_MS,
    );
    expect(ingestClosed.code).toBe(1008);
    expect(liveClosed.code).toBe(LIVE_SESSION_ENDED);
    expect(keptIngest.ws.readyState).toBe(WebSocket.OPEN);
    keptIngest.ws.close();
    expect(other.logs.some((l) => l.includes("closed the sockets of a revoked worker token"))).toBe(
      true,
    );
  });

  test("after the close the token cannot open a socket again (401)", async () => {
    const revoked = await createToken(prisma, "rev-host-2");
    const ingest = await open(other, "/ws/ingest", { authorization: `Bearer ${revoked.token}` });
    await run(
      process.execPath,
      [path.join(projectDir, "bin", "pitwall.mjs"), "token", "revoke", String(revoked.id)],
      { cwd: projectDir, env: { ...process.env, DATABASE_URL: databaseUrl } },
    );
    expect((await within(ingest.closed, WITHIN_MS)).code).toBe(1008);
    const again = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${other.url.replace("http", "ws")}/ws/ingest`, {
        headers: { authorization: `Bearer ${revoked.token}` },
      });
      ws.once("unexpected-response", (_req, r) => resolve(r.statusCode ?? 0));
      ws.once("open", () => resolve(101));
    });
    expect(again).toBe(401);
  });

  test("via the admin API of one instance: the token's sockets on the other instance close", async () => {
    const admin = await newSignedInUser(prisma, first.url, "admin");
    const revoked = await createToken(prisma, "rev-host-3");
    const ingest = await open(other, "/ws/ingest", { authorization: `Bearer ${revoked.token}` });
    const res = await fetch(`${first.url}/api/admin/tokens/${revoked.id}`, {
      method: "DELETE",
      headers: { cookie: admin.cookie, origin: first.url },
    });
    expect(res.status).toBe(200);
    expect((await within(ingest.closed, WITHIN_MS)).code).toBe(1008);
  });
});

describe("disabling a person", () => {
  test("closes their live sockets on every instance at once (4401); another person's stay open", async () => {
    const admin = await newSignedInUser(prisma, first.url, "admin");
    const leaving = await newSignedInUser(prisma, other.url, "viewer");
    const staying = await newSignedInUser(prisma, other.url, "viewer");
    const a = await open(other, "/ws/live", { cookie: leaving.cookie, origin: other.url });
    const b = await open(other, "/ws/live", { cookie: staying.cookie, origin: other.url });
    const user = await prisma.user.findUniqueOrThrow({
      where: { email: leaving.email },
      select: { id: true },
    });
    const res = await fetch(`${first.url}/api/admin/users/${user.id}`, {
      method: "PATCH",
      headers: { cookie: admin.cookie, origin: first.url, "content-type": "application/json" },
      body: JSON.stringify({ disabled: true }),
    });
    expect(res.status).toBe(200);
    expect((await within(a.closed, WITHIN_MS)).code).toBe(LIVE_SESSION_ENDED);
    expect(b.ws.readyState).toBe(WebSocket.OPEN);
    b.ws.close();
  });
});
