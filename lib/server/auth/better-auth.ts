import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError, createAuthMiddleware } from "better-auth/api";

import type { PrismaClient } from "@/generated/prisma/client";
import { ROLES } from "@/lib/roles";
import { prisma } from "@/lib/server/db";
import { parseEnv } from "@/lib/server/env";
import { logger, type Logger } from "@/lib/server/logger";

import { CLIENT_ADDRESS_HEADER } from "./client-address";
import { COOKIE_PREFIX } from "./credentials";
import { requestHosts, requestOrigin } from "./origin";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from "./password-policy";
import { resolveAuthSecret } from "./secret";

/**
 * Sign-in for people, by better-auth (email + password; sessions stored in PostgreSQL through
 * Prisma, in the tables User / UserSession / UserAccount / AuthVerification). Worker tokens are
 * not better-auth's business: see viewer.ts.
 */

/** A session lasts this long after its last refresh (better-auth refreshes it at most daily on use). */
export const SESSION_TTL_S = 30 * 24 * 3600;

/** What the auth instance is built from. */
export interface AuthSettings {
  db: PrismaClient;
  /** Signs session cookies; ≥ 32 characters. */
  secret: string;
  /** PITWALL_PUBLIC_URL: trusted as an origin, and `https:` turns on Secure cookies. */
  publicUrl?: string;
  log: Logger;
}

/** Builds the better-auth instance. Exported for tests and for `typeof`; the app uses {@link getAuth}. */
export function createAuth(settings: AuthSettings) {
  const publicOrigins = trustedOrigins(settings.publicUrl);
  return betterAuth({
    appName: "Pitwall",
    secret: settings.secret,
    database: prismaAdapter(settings.db, { provider: "postgresql" }),
    // No fixed baseURL: Pitwall answers under several names (localhost:8080, kpro5:8080, a TLS
    // proxy's name). authRequest() hands better-auth a URL built from the request's Host, and
    // these origins are what its CSRF check accepts in Origin (same host; http or https).
    trustedOrigins: async (request?: Request) => {
      if (!request) return publicOrigins;
      return [
        ...publicOrigins,
        ...requestHosts(request.headers).flatMap((h) => [`http://${h}`, `https://${h}`]),
      ];
    },
    emailAndPassword: {
      enabled: true,
      // Accounts are made by the first-visit setup, admins (/admin) and `pitwall user create`.
      disableSignUp: true,
      // Checked when a password is set (/change-password), never at sign-in: older, shorter
      // passwords keep working until changed. The rest of the policy is the hook below.
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
    },
    user: {
      modelName: "user",
      additionalFields: {
        role: { type: [...ROLES], required: false, defaultValue: "viewer", input: false },
        disabledAt: { type: "date", required: false, input: false },
      },
    },
    session: { modelName: "userSession", expiresIn: SESSION_TTL_S, updateAge: 24 * 3600 },
    account: { modelName: "userAccount" },
    verification: { modelName: "authVerification" },
    // Endpoints we do not offer: people do not edit their own role/email or delete themselves,
    // and there is no mail server for resets (an admin sets a new password instead).
    disabledPaths: [
      "/update-user",
      "/change-email",
      "/delete-user",
      "/request-password-reset",
      "/reset-password",
      "/send-verification-email",
      "/verify-email",
    ],
    rateLimit: {
      enabled: true,
      // better-auth counts every request per (address, path) and cannot key by account, so failed
      // sign-ins are limited by us, per account and per address (sign-in-limit.ts); its other
      // endpoints keep its default limits, per real client address.
      customRules: { "/sign-in/email": false },
    },
    advanced: {
      // Explicit, because better-auth turns its origin check off when it believes it runs under a
      // test runner (TEST=true, which vitest exports to the servers our tests start).
      disableOriginCheck: false,
      disableCSRFCheck: false,
      // The custom server stamps the client's address here, trusting X-Forwarded-For only from
      // PITWALL_TRUSTED_PROXIES (client-address.ts); the client's own header is never read.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
      cookiePrefix: COOKIE_PREFIX,
      // Secure cookies only when we know the public URL is https; plain-http LAN installs
      // (http://kpro5:8080) would otherwise never keep a session.
      useSecureCookies: settings.publicUrl?.startsWith("https://") ?? false,
    },
    databaseHooks: {
      session: {
        create: {
          // A disabled account keeps its password but may not start sessions.
          before: async (session) => {
            const user = await settings.db.user.findUnique({
              where: { id: session.userId },
              select: { disabledAt: true },
            });
            if (!user || user.disabledAt)
              throw new APIError("FORBIDDEN", {
                message: "this account is disabled; ask an admin",
              });
          },
        },
      },
    },
    hooks: {
      // A person changing their own password meets the same policy as every other way of setting one.
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/change-password") return;
        const next = (ctx.body as { newPassword?: unknown } | undefined)?.newPassword;
        const problem = typeof next === "string" ? passwordProblem(next) : null;
        if (problem)
          throw new APIError("BAD_REQUEST", {
            message: `new password: ${problem}`,
            code: "WEAK_PASSWORD",
          });
      }),
    },
    telemetry: { enabled: false },
    logger: {
      level: "warn",
      log: (level, message, ...args) => {
        // No fixed base URL is a decision (see trustedOrigins above), not a misconfiguration.
        if (message.includes("Base URL is not set")) return;
        settings.log[
          level === "debug"
            ? "debug"
            : level === "info"
              ? "info"
              : level === "warn"
                ? "warn"
                : "error"
        ]({ args, component: "auth" }, message);
      },
    },
  });
}

/** The better-auth instance type. */
export type Auth = ReturnType<typeof createAuth>;

function trustedOrigins(publicUrl: string | undefined): string[] {
  if (!publicUrl) return [];
  try {
    return [new URL(publicUrl).origin];
  } catch {
    return [];
  }
}

// One instance per module copy (server.ts under tsx, and Next's bundle each have their own; both
// read the same secret). Kept off globalThis on purpose: the two copies' classes differ.
let instance: Promise<Auth> | null = null;
let envCache: { publicOrigins: string[]; publicUrl?: string; secret?: string } | null = null;

function env() {
  if (!envCache) {
    const e = parseEnv();
    envCache = {
      publicOrigins: trustedOrigins(e.PITWALL_PUBLIC_URL),
      publicUrl: e.PITWALL_PUBLIC_URL,
      secret: e.PITWALL_AUTH_SECRET,
    };
  }
  return envCache;
}

/** Exact origins trusted besides the request's own host (PITWALL_PUBLIC_URL's). */
export function publicOrigins(): string[] {
  return env().publicOrigins;
}

/**
 * The app's better-auth instance, created on first use (resolving the secret may write it to the
 * database). A failed start is not cached, so the next request retries.
 */
export function getAuth(): Promise<Auth> {
  instance ??= (async () => {
    const { secret, publicUrl } = env();
    return createAuth({
      db: prisma(),
      secret: await resolveAuthSecret(prisma(), secret),
      publicUrl,
      log: logger,
    });
  })().catch((err: unknown) => {
    instance = null;
    throw err;
  });
  return instance;
}

const HOST_PATTERN = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)(:\d{1,5})?$/i;

/**
 * The request as better-auth should see it: Next builds `request.url` from the listening address
 * (http://0.0.0.0:8080/…), so the URL is rebuilt from Host / X-Forwarded-Host and -Proto.
 */
export async function authRequest(request: Request): Promise<Request> {
  const origin = requestOrigin(request.headers);
  if (!origin || !HOST_PATTERN.test(origin.replace(/^https?:\/\//, ""))) return request;
  const url = new URL(request.url);
  const body =
    request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  return new Request(new URL(url.pathname + url.search, origin), {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
  });
}
