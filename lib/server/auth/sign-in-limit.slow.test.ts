import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { SIGN_IN_LIMITS } from "@/lib/server/auth/sign-in-limit";
import { accountKey } from "@/lib/server/repositories/sign-in-throttle";
import { createUser, updateUser } from "@/lib/server/repositories/users";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// Sign-in attempts are limited per account and per client address, through the real server:
// `direct` trusts no proxy (X-Forwarded-For is ignored, the socket address counts), `proxied`
// trusts 127.0.0.1 (where the test connects from), so X-Forwarded-For picks the address there.
// Each server has its own database: the counts live in PostgreSQL. Every checked attempt costs a
// scrypt check, so these tests get more time than the default on a busy machine.
const SLOW_MS = 120_000;
const FREE = SIGN_IN_LIMITS.account.free;

type Setup = { server: TestServer; prisma: PrismaClient };
let direct: Setup;
let proxied: Setup;

async function setup(env: Record<string, string>): Promise<Setup> {
  const databaseUrl = await createTestDatabase();
  return {
    prisma: new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 1 }) }),
    server: await startTestServer({ databaseUrl, env }),
  };
}

beforeAll(async () => {
  [direct, proxied] = await Promise.all([
    setup({}),
    setup({ PITWALL_TRUSTED_PROXIES: "127.0.0.1" }),
  ]);
});

afterAll(async () => {
  for (const s of [direct, proxied]) {
    await s?.server.stop();
    await s?.prisma.$disconnect();
  }
});

type Encoding = "json" | "form" | "multipart";

function encode(
  encoding: Encoding,
  email: string,
  password: string,
): { headers: Record<string, string>; body: BodyInit } {
  if (encoding === "json")
    return {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    };
  if (encoding === "form")
    return {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password }).toString(),
    };
  const form = new FormData();
  form.set("email", email);
  form.set("password", password);
  return { headers: {}, body: form };
}

/** Tries to sign in; resolves the HTTP status (and the body's code/message on 429). */
async function attempt(
  s: Setup,
  email: string,
  password: string,
  opts: { forwardedFor?: string; encoding?: Encoding } = {},
) {
  const { headers, body } = encode(opts.encoding ?? "json", email, password);
  const res = await fetch(`${s.server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: {
      ...headers,
      origin: s.server.url,
      ...(opts.forwardedFor ? { "x-forwarded-for": opts.forwardedFor } : {}),
    },
    body,
  });
  const json = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
  return {
    status: res.status,
    code: json.code,
    message: json.message,
    retryAfter: res.headers.get("retry-after"),
  };
}

const person = async (s: Setup, name: string) => {
  const email = `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { password } = await createUser(s.prisma, { email, name, role: "viewer" });
  return { email, password };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("per account", () => {
  test.each(["json", "form", "multipart"] as const)(
    "20 wrong %s guesses in a row: the first few are checked, then 429 until the back-off ends",
    async (encoding) => {
      const x = await person(direct, `x-${encoding}`);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++)
        statuses.push((await attempt(direct, x.email, "wrong-password", { encoding })).status);
      expect(statuses.slice(0, FREE)).toEqual(Array(FREE).fill(401));
      // Refused attempts are not counted, so one more may be checked each time a back-off ends.
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(FREE + 3);
      expect(statuses.at(-1)).toBe(429);
      const locked = await attempt(direct, x.email, x.password, { encoding });
      expect(locked).toMatchObject({ status: 429, code: "too_many_attempts" });
      expect(locked.message).toContain("for this account");
      // A short back-off, never a long lockout: the owner gets in once it has passed.
      const waitS = Number(locked.retryAfter);
      expect(waitS).toBeGreaterThan(0);
      expect(waitS).toBeLessThanOrEqual(SIGN_IN_LIMITS.account.maxDelayS);
      await sleep(waitS * 1000 + 200);
      expect((await attempt(direct, x.email, x.password, { encoding })).status).toBe(200);
    },
    SLOW_MS,
  );

  test(
    "a body in an encoding the limiter cannot read never reaches the password check",
    async () => {
      const x = await person(direct, "plain");
      const res = await fetch(`${direct.server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "text/plain", origin: direct.server.url },
        body: JSON.stringify({ email: x.email, password: x.password }),
      });
      expect(res.status).toBe(400);
    },
    SLOW_MS,
  );

  test(
    "40 parallel wrong guesses on one account: at most the free allowance is checked",
    async () => {
      const x = await person(direct, "par");
      const results = await Promise.all(
        Array.from({ length: 40 }, () => attempt(direct, x.email, "wrong-password")),
      );
      const checked = results.filter((r) => r.status === 401).length;
      expect(checked).toBeGreaterThan(0);
      expect(checked).toBeLessThanOrEqual(FREE);
      expect(results.filter((r) => r.status === 429).length).toBe(40 - checked);
    },
    SLOW_MS,
  );

  test(
    "an admin setting a new password lifts the back-off at once",
    async () => {
      const x = await person(direct, "reset");
      // As if the account had been guessed at for a long time: the longest back-off, just started.
      await direct.prisma.signInThrottle.create({
        data: {
          key: accountKey(x.email),
          windowStartedAt: new Date(Date.now() - 600_000),
          lastFailureAt: new Date(),
          failures: 40,
        },
      });
      const locked = await attempt(direct, x.email, x.password);
      expect(locked.status).toBe(429);
      expect(Number(locked.retryAfter)).toBeGreaterThan(30);
      // The path `pitwall user set-password` and PATCH /api/admin/users/:id share.
      await updateUser(direct.prisma, x.email, { password: "a-brand-new-passphrase-42" });
      expect((await attempt(direct, x.email, "a-brand-new-passphrase-42")).status).toBe(200);
    },
    SLOW_MS,
  );

  test(
    "failures for account X from one address (behind a trusted proxy) do not lock out Y from that address or another",
    async () => {
      const x = await person(proxied, "x");
      const y = await person(proxied, "y");
      for (let i = 0; i < 15; i++)
        await attempt(proxied, x.email, "wrong-password", { forwardedFor: "198.51.100.1" });
      expect(
        (await attempt(proxied, x.email, "wrong-password", { forwardedFor: "198.51.100.2" }))
          .status,
      ).toBe(429);
      expect(
        (await attempt(proxied, y.email, y.password, { forwardedFor: "198.51.100.1" })).status,
      ).toBe(200);
      expect(
        (await attempt(proxied, y.email, y.password, { forwardedFor: "198.51.100.2" })).status,
      ).toBe(200);
    },
    SLOW_MS,
  );

  test(
    "a success clears the account's count",
    async () => {
      const z = await person(direct, "z");
      for (let i = 0; i < FREE - 1; i++)
        expect((await attempt(direct, z.email, "wrong-password")).status).toBe(401);
      expect((await attempt(direct, z.email, z.password)).status).toBe(200);
      for (let i = 0; i < FREE - 1; i++)
        expect((await attempt(direct, z.email, "wrong-password")).status).toBe(401);
    },
    SLOW_MS,
  );
});

describe("per address", () => {
  test(
    "behind a trusted proxy the forwarded address counts: one client's spray slows that address only, for a short back-off",
    async () => {
      const w = await person(proxied, "w");
      const statuses = new Set<number>();
      for (let i = 0; i < SIGN_IN_LIMITS.address.free + 5; i++)
        statuses.add(
          (
            await attempt(proxied, `spray-${i}@example.com`, "wrong-password", {
              forwardedFor: "198.51.100.66",
            })
          ).status,
        );
      expect(statuses).toEqual(new Set([401, 429]));
      const refused = await attempt(proxied, w.email, w.password, {
        forwardedFor: "198.51.100.66",
      });
      expect(refused).toMatchObject({ status: 429, code: "too_many_attempts" });
      expect(refused.message).toContain("from your address");
      expect(
        (await attempt(proxied, w.email, w.password, { forwardedFor: "198.51.100.67" })).status,
      ).toBe(200);
      // The person behind the sprayer's address waits the back-off, not 15 minutes.
      await sleep(Number(refused.retryAfter) * 1000 + 200);
      expect(
        (await attempt(proxied, w.email, w.password, { forwardedFor: "198.51.100.66" })).status,
      ).toBe(200);
    },
    SLOW_MS,
  );

  test(
    "a new spoofed X-Forwarded-For per try from an untrusted peer is ignored: the address limit still applies",
    async () => {
      const statuses: number[] = [];
      for (let i = 0; i < SIGN_IN_LIMITS.address.free + 5; i++)
        statuses.push(
          (
            await attempt(direct, `spray-${i}@example.com`, "wrong-password", {
              forwardedFor: `203.0.113.${i}`,
            })
          ).status,
        );
      expect(statuses).toContain(429);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(
        SIGN_IN_LIMITS.address.free + 3,
      );
    },
    SLOW_MS,
  );
});
