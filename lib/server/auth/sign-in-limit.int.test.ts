import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PrismaClient } from "@/generated/prisma/client";
import { SIGN_IN_LIMITS } from "@/lib/server/auth/sign-in-limit";
import { createUser } from "@/lib/server/repositories/users";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// Failed sign-ins are limited per account and per client address, through the real server:
// `direct` trusts no proxy (X-Forwarded-For is ignored, the socket address counts), `proxied`
// trusts 127.0.0.1 (where the test connects from), so X-Forwarded-For picks the address there.
// Each server has its own database: the counts live in PostgreSQL. Every failure costs a scrypt
// check, so these tests get more time than the default on a busy machine.
const SLOW_MS = 120_000;

type Setup = { server: TestServer; prisma: PrismaClient };
let direct: Setup;
let proxied: Setup;

async function setup(env: Record<string, string>): Promise<Setup> {
  const databaseUrl = await createTestDatabase();
  return { prisma: new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 1 }) }), server: await startTestServer({ databaseUrl, env }) };
}

beforeAll(async () => {
  [direct, proxied] = await Promise.all([setup({}), setup({ PITWALL_TRUSTED_PROXIES: "127.0.0.1" })]);
});

afterAll(async () => {
  for (const s of [direct, proxied]) {
    await s?.server.stop();
    await s?.prisma.$disconnect();
  }
});

/** Tries to sign in; resolves the HTTP status (and the body's code/message on 429). */
async function attempt(s: Setup, email: string, password: string, forwardedFor?: string) {
  const res = await fetch(`${s.server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: s.server.url, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
    body: JSON.stringify({ email, password }),
  });
  const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
  return { status: res.status, code: body.code, message: body.message, retryAfter: res.headers.get("retry-after") };
}

const person = async (s: Setup, name: string) => {
  const email = `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { password } = await createUser(s.prisma, { email, name, role: "viewer" });
  return { email, password };
};

describe("per account", () => {
  test("30 failures for account X lock out X, not account Y from the same address", async () => {
    const x = await person(direct, "x");
    const y = await person(direct, "y");
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await attempt(direct, x.email, "wrong-password")).status);
    expect(statuses.slice(0, SIGN_IN_LIMITS.account)).toEqual(Array(SIGN_IN_LIMITS.account).fill(401));
    expect(new Set(statuses.slice(SIGN_IN_LIMITS.account))).toEqual(new Set([429]));
    // Even the right password waits: the account is being guessed.
    const locked = await attempt(direct, x.email, x.password);
    expect(locked).toMatchObject({ status: 429, code: "too_many_attempts" });
    expect(locked.message).toContain("for this account");
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect((await attempt(direct, y.email, y.password)).status).toBe(200);
  }, SLOW_MS);

  test("30 failures for account X from one address (behind a trusted proxy) do not lock out Y from that address or another", async () => {
    const x = await person(proxied, "x");
    const y = await person(proxied, "y");
    for (let i = 0; i < 30; i++) await attempt(proxied, x.email, "wrong-password", "198.51.100.1");
    expect((await attempt(proxied, x.email, "wrong-password", "198.51.100.2")).status).toBe(429);
    expect((await attempt(proxied, y.email, y.password, "198.51.100.1")).status).toBe(200);
    expect((await attempt(proxied, y.email, y.password, "198.51.100.2")).status).toBe(200);
  }, SLOW_MS);

  test("a success clears the account's count", async () => {
    const z = await person(direct, "z");
    for (let i = 0; i < SIGN_IN_LIMITS.account - 1; i++) expect((await attempt(direct, z.email, "wrong-password")).status).toBe(401);
    expect((await attempt(direct, z.email, z.password)).status).toBe(200);
    expect((await attempt(direct, z.email, "wrong-password")).status).toBe(401);
  }, SLOW_MS);
});

describe("per address", () => {
  test("a new spoofed X-Forwarded-For per try from an untrusted peer is ignored: the address limit still applies", async () => {
    const w = await person(direct, "w");
    // Spraying: one failure per account, each try with a fresh X-Forwarded-For. (Earlier tests'
    // failures came from the same socket address, so the limit may be reached before the end.)
    const statuses = new Set<number>();
    for (let i = 0; i < SIGN_IN_LIMITS.address; i++) statuses.add((await attempt(direct, `spray-${i}@example.com`, "wrong-password", `203.0.113.${i}`)).status);
    expect(statuses).toEqual(new Set([401, 429]));
    const refused = await attempt(direct, w.email, w.password, "192.0.2.77");
    expect(refused).toMatchObject({ status: 429, code: "too_many_attempts" });
    expect(refused.message).toContain("from your address");
  }, SLOW_MS);

  test("behind a trusted proxy the forwarded address counts: one client's spray does not block another", async () => {
    const w = await person(proxied, "w");
    for (let i = 0; i < SIGN_IN_LIMITS.address; i++) await attempt(proxied, `spray-${i}@example.com`, "wrong-password", "198.51.100.66");
    expect((await attempt(proxied, w.email, w.password, "198.51.100.66")).status).toBe(429);
    expect((await attempt(proxied, w.email, w.password, "198.51.100.67")).status).toBe(200);
  }, SLOW_MS);
});
