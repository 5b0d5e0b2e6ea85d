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
import { newSignedInUser, signIn as signInAs } from "@/test/support/people";
import { startTestServer, type TestServer } from "@/test/support/server";

// People and roles through the real server: the first-visit setup on a fresh install (race-safe),
// 401 without credentials, worker tokens may read, viewers may not decide, approvers may, cookie
// mutations must be same-origin, /ws/live checks the session during the upgrade, disabled
// accounts lose their sessions, and `pitwall user create` makes accounts that can sign in.

const projectDir = path.resolve(import.meta.dirname, "../../..");
let server: TestServer;
let prisma: PrismaClient;
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  // Open live sockets have their session re-checked every second here (60 s by default).
  server = await startTestServer({ databaseUrl, env: { PITWALL_LIVE_RECHECK_S: "1" } });
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
});

/** Every read route of the API (the GETs people and workers use). */
const READ_ROUTES = [
  "/api/runs",
  "/api/runs/1",
  "/api/runs/1/progress",
  "/api/runs/1/metrics",
  "/api/hosts",
  "/api/hosts/h1",
  "/api/overview",
  "/api/sessions",
  "/api/sessions/1",
  "/api/plans",
  "/api/plans/by-id/1",
];

const signIn = (email: string, password: string) => signInAs(server.url, email, password);
const newUser = (role: "viewer" | "approver" | "admin") =>
  newSignedInUser(prisma, server.url, role);

/** Proposes a plan through the public ingest path, like an agent would; returns its numeric id. */
async function proposePlan(token: string): Promise<number> {
  const plan = `plan-${randomUUID()}`;
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify([
      {
        v: 1,
        id: randomUUID(),
        type: "plan.propose",
        plan,
        title: "Next: upload",
        items: [{ content: "Upload to S3" }],
      },
    ]),
  });
  expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
  return (await prisma.plan.findUniqueOrThrow({ where: { key: plan }, select: { id: true } })).id;
}

const decide = (planId: number, headers: Record<string, string>) =>
  fetch(`${server.url}/api/plans/by-id/${planId}/decision`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ decision: "approved" }),
  });

/** Opens /ws/live with the given headers; resolves "open" or the HTTP status of the refusal. */
function liveUpgrade(headers: Record<string, string>): Promise<"open" | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws/live`, { headers });
    ws.once("open", () => {
      ws.close();
      resolve("open");
    });
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.once("error", reject);
  });
}

describe("fresh install", () => {
  // Runs first (vitest keeps file order): no account exists yet in this database.
  test("the first visit goes to /setup; concurrent setups create exactly one admin; then /setup is closed", async () => {
    const home = await fetch(`${server.url}/`, { redirect: "manual" });
    expect(home.status).toBe(307);
    expect(home.headers.get("location")).toMatch(/\/sign-in$/);
    const signInPage = await fetch(`${server.url}/sign-in`, { redirect: "manual" });
    expect(signInPage.headers.get("location")).toMatch(/\/setup$/);
    expect((await fetch(`${server.url}/setup`, { redirect: "manual" })).status).toBe(200);

    const attempts = await Promise.all(
      ["a", "b", "c", "d"].map((n) =>
        fetch(`${server.url}/api/setup`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: server.url },
          body: JSON.stringify({
            name: `Admin ${n}`,
            email: `first-${n}@example.com`,
            password: "correct horse",
          }),
        }),
      ),
    );
    expect(attempts.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const admins = await prisma.user.findMany({ select: { email: true, role: true } });
    expect(admins).toHaveLength(1);
    expect(admins[0]!.role).toBe("admin");

    await signIn(admins[0]!.email, "correct horse");
    expect(
      (await fetch(`${server.url}/setup`, { redirect: "manual" })).headers.get("location"),
    ).toMatch(/\/sign-in$/);
    const late = await fetch(`${server.url}/api/setup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({
        name: "Mallory",
        email: "mallory@example.com",
        password: "correct horse",
      }),
    });
    expect(late.status).toBe(409);
  });

  test("a cross-site setup request is refused", async () => {
    const res = await fetch(`${server.url}/api/setup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://evil.example" },
      body: JSON.stringify({
        name: "Mallory",
        email: "mallory@example.com",
        password: "correct horse",
      }),
    });
    expect(res.status).toBe(403);
  });
});

describe("reads", () => {
  test("every API read answers 401 {error:{code:'unauthorized'}} without credentials", async () => {
    for (const route of READ_ROUTES) {
      const res = await fetch(`${server.url}${route}`);
      expect(res.status, route).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code, route).toBe(
        "unauthorized",
      );
    }
  });

  test("a worker token reads; an unknown or revoked one does not", async () => {
    const { token, id } = await createToken(prisma, `reader-${randomUUID().slice(0, 6)}`);
    for (const route of [
      "/api/runs",
      "/api/hosts",
      "/api/overview",
      "/api/sessions",
      "/api/plans",
    ]) {
      expect(
        (await fetch(`${server.url}${route}`, { headers: { authorization: `Bearer ${token}` } }))
          .status,
        route,
      ).toBe(200);
    }
    expect(
      (
        await fetch(`${server.url}/api/runs`, {
          headers: { authorization: "Bearer pw_not_a_token" },
        })
      ).status,
    ).toBe(401);
    await prisma.apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
    expect(
      (await fetch(`${server.url}/api/runs`, { headers: { authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(401);
  });

  test("a signed-in viewer reads; pages render for them and redirect to /sign-in?next= without a session", async () => {
    const viewer = await newUser("viewer");
    expect(
      (await fetch(`${server.url}/api/overview`, { headers: { cookie: viewer.cookie } })).status,
    ).toBe(200);
    // Behind a proxy with its own password prompt the browser also sends Basic credentials: not ours.
    expect(
      (
        await fetch(`${server.url}/api/overview`, {
          headers: { cookie: viewer.cookie, authorization: "Basic dXNlcjpwYXNz" },
        })
      ).status,
    ).toBe(200);
    const page = await fetch(`${server.url}/runs`, { headers: { cookie: viewer.cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("viewer person"); // the user menu
    const anonymous = await fetch(`${server.url}/runs?kind=benchmark`, { redirect: "manual" });
    expect(anonymous.headers.get("location")).toMatch(
      /\/sign-in\?next=%2Fruns%3Fkind%3Dbenchmark$/,
    );
    // A forged cookie gets past the proxy's quick check but not the page's real one.
    const forged = await fetch(`${server.url}/hosts`, {
      headers: { cookie: "pitwall.session_token=forged.signature" },
      redirect: "manual",
    });
    expect(forged.headers.get("location")).toMatch(/\/sign-in\?next=%2Fhosts$/);
  });
});

describe("plan decisions", () => {
  let token: string;
  beforeAll(async () => {
    token = (await createToken(prisma, "agent-box")).token;
  });

  test("a viewer gets 403; a worker token gets 403; the plan stays undecided", async () => {
    const planId = await proposePlan(token);
    const viewer = await newUser("viewer");
    const res = await decide(planId, { cookie: viewer.cookie, origin: server.url });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect((await decide(planId, { authorization: `Bearer ${token}` })).status).toBe(403);
    expect((await prisma.plan.findUniqueOrThrow({ where: { id: planId } })).status).toBe(
      "proposed",
    );
  });

  test("an approver decides; the decision records their name", async () => {
    const planId = await proposePlan(token);
    const approver = await newUser("approver");
    const res = await decide(planId, { cookie: approver.cookie, origin: server.url });
    expect(res.status, await res.clone().text()).toBe(200);
    const decision = await prisma.planDecision.findFirstOrThrow({ where: { planId } });
    expect(decision.decidedBy).toBe("approver person");
    expect((await prisma.plan.findUniqueOrThrow({ where: { id: planId } })).status).toBe(
      "approved",
    );
  });

  test("CSRF: an approver's cookie with a foreign Origin, or with no Origin, is refused", async () => {
    const planId = await proposePlan(token);
    const approver = await newUser("approver");
    // Another service on the same machine is same-site, so the browser would send the Lax cookie.
    const sameSiteOtherPort = new URL(server.url);
    sameSiteOtherPort.port = "1";
    for (const origin of ["http://evil.example", sameSiteOtherPort.origin, "null"]) {
      const res = await decide(planId, { cookie: approver.cookie, origin });
      expect(res.status, origin).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /cross-site/,
      );
    }
    expect((await decide(planId, { cookie: approver.cookie })).status).toBe(403);
    expect(
      (await decide(planId, { cookie: approver.cookie, "sec-fetch-site": "cross-site" })).status,
    ).toBe(403);
    expect((await prisma.plan.findUniqueOrThrow({ where: { id: planId } })).status).toBe(
      "proposed",
    );
    expect(
      (await decide(planId, { cookie: approver.cookie, "sec-fetch-site": "same-origin" })).status,
    ).toBe(200);
  });
});

describe("better-auth endpoints", () => {
  test("sign-in with a wrong password is 401; sign-out with a foreign Origin is refused, with ours it ends the session", async () => {
    const viewer = await newUser("viewer");
    const wrong = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: viewer.email, password: "not the password" }),
    });
    expect(wrong.status).toBe(401);
    const signOut = (origin: string) =>
      fetch(`${server.url}/api/auth/sign-out`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: viewer.cookie, origin },
        body: "{}",
      });
    expect((await signOut("http://evil.example")).status).toBe(403);
    expect(
      (await fetch(`${server.url}/api/runs`, { headers: { cookie: viewer.cookie } })).status,
    ).toBe(200);
    expect((await signOut(server.url)).status).toBe(200);
    expect(
      (await fetch(`${server.url}/api/runs`, { headers: { cookie: viewer.cookie } })).status,
    ).toBe(401);
  });

  test("sign-up through better-auth is off: accounts come from setup, admins and the CLI", async () => {
    const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "self@example.com", password: "correct horse", name: "Self" }),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await prisma.user.count({ where: { email: "self@example.com" } })).toBe(0);
  });
});

describe("/ws/live", () => {
  test("the upgrade needs a valid session (401, no socket) and this site's Origin (403)", async () => {
    const viewer = await newUser("viewer");
    expect(await liveUpgrade({})).toBe(401);
    expect(await liveUpgrade({ cookie: "pitwall.session_token=forged.signature" })).toBe(401);
    expect(await liveUpgrade({ cookie: viewer.cookie, origin: "http://evil.example" })).toBe(403);
    expect(await liveUpgrade({ cookie: viewer.cookie, origin: server.url })).toBe("open");
  });

  test("an open socket is closed (4401) once its session ends by sign-out; other people's sockets stay open", async () => {
    const leaving = await newUser("viewer");
    const staying = await newUser("viewer");
    const open = (cookie: string) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws/live`, {
          headers: { cookie, origin: server.url },
        });
        ws.once("open", () => resolve(ws));
        ws.once("error", reject);
      });
    const [a, b] = await Promise.all([open(leaving.cookie), open(staying.cookie)]);
    const closed = new Promise<number>((resolve) => a.once("close", (code) => resolve(code)));
    const signOut = await fetch(`${server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: leaving.cookie, origin: server.url },
      body: "{}",
    });
    expect(signOut.status).toBe(200);
    expect(await closed).toBe(LIVE_SESSION_ENDED);
    // Two more sweeps: the other person's socket is untouched.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(b.readyState).toBe(WebSocket.OPEN);
    b.close();
  });
});

describe("admin", () => {
  test("only admins manage people and tokens; disabling ends the person's sessions and sign-ins", async () => {
    const admin = await newUser("admin");
    const approver = await newUser("approver");
    const asAdmin = {
      cookie: admin.cookie,
      origin: server.url,
      "content-type": "application/json",
    };
    expect(
      (await fetch(`${server.url}/api/admin/users`, { headers: { cookie: approver.cookie } }))
        .status,
    ).toBe(403);
    expect(
      (await fetch(`${server.url}/admin`, { headers: { cookie: approver.cookie } })).status,
    ).toBe(200); // "Admins only" message
    expect(
      (await fetch(`${server.url}/api/admin/users`, { headers: { cookie: admin.cookie } })).status,
    ).toBe(200);

    const created = await fetch(`${server.url}/api/admin/users`, {
      method: "POST",
      headers: asAdmin,
      body: JSON.stringify({ email: "New.Person@Example.com", name: "New Person", role: "viewer" }),
    });
    expect(created.status).toBe(201);
    const { generatedPassword } = (await created.json()) as { generatedPassword: string };
    await signIn("new.person@example.com", generatedPassword);

    const user = await prisma.user.findUniqueOrThrow({ where: { email: approver.email } });
    const patch = await fetch(`${server.url}/api/admin/users/${user.id}`, {
      method: "PATCH",
      headers: asAdmin,
      body: JSON.stringify({ disabled: true }),
    });
    expect(patch.status).toBe(200);
    expect(
      (await fetch(`${server.url}/api/runs`, { headers: { cookie: approver.cookie } })).status,
    ).toBe(401);
    const again = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: approver.email, password: approver.password }),
    });
    expect(again.status).toBe(403);

    const token = await fetch(`${server.url}/api/admin/tokens`, {
      method: "POST",
      headers: asAdmin,
      body: JSON.stringify({ host: "kpro5" }),
    });
    expect(token.status).toBe(201);
    const { id, token: secret } = (await token.json()) as { id: number; token: string };
    expect(
      (await fetch(`${server.url}/api/runs`, { headers: { authorization: `Bearer ${secret}` } }))
        .status,
    ).toBe(200);
    expect(
      (await fetch(`${server.url}/api/admin/tokens/${id}`, { method: "DELETE", headers: asAdmin }))
        .status,
    ).toBe(200);
    expect(
      (await fetch(`${server.url}/api/runs`, { headers: { authorization: `Bearer ${secret}` } }))
        .status,
    ).toBe(401);
  });
});

describe("pitwall user", () => {
  test("user create prints a generated password that signs in; set-role changes what they may do", async () => {
    const run = (args: string[]) =>
      promisify(execFile)(
        process.execPath,
        [path.join(projectDir, "bin", "pitwall.mjs"), "user", ...args],
        { cwd: projectDir, env: { ...process.env, DATABASE_URL: databaseUrl } },
      );
    const email = `cli-${randomUUID().slice(0, 8)}@example.com`;
    const { stdout } = await run([
      "create",
      "--email",
      email,
      "--name",
      "Cli Person",
      "--role",
      "viewer",
    ]);
    const password = stdout.trim().split("\n").at(-1)!;
    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const cookie = await signIn(email, password);
    const planId = await proposePlan((await createToken(prisma, "agent-cli")).token);
    expect((await decide(planId, { cookie, origin: server.url })).status).toBe(403);
    await run(["set-role", email, "approver"]);
    expect((await decide(planId, { cookie, origin: server.url })).status).toBe(200);
    expect((await run(["list"])).stdout).toContain(`${email}\tCli Person\tapprover\tactive`);
    // Three CLI processes and a sign-in: 2-4 s quiet, over 30 s at load 15 (2026-12-06).
  }, 120_000);
});
