import { randomUUID } from "node:crypto";

import type { PrismaClient } from "@/generated/prisma/client";
import { createUser } from "@/lib/server/repositories/users";

/**
 * Signs in through better-auth's email endpoint like the sign-in page does.
 * @returns the `Cookie` header value (`pitwall.session_token=…`).
 * @throws Error when the sign-in is not answered 200 with a session cookie.
 */
export async function signIn(serverUrl: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${serverUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: serverUrl },
    body: JSON.stringify({ email, password }),
  });
  const body = await res.text();
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("pitwall.session_token="));
  if (res.status !== 200 || !cookie)
    throw new Error(`sign-in of ${email} failed: HTTP ${res.status} ${body}`);
  return cookie.split(";")[0]!;
}

/** Creates a person with `role` in the database and signs them in; returns email, password and cookie. */
export async function newSignedInUser(
  prisma: PrismaClient,
  serverUrl: string,
  role: "viewer" | "approver" | "admin",
) {
  const email = `${role}-${randomUUID().slice(0, 8)}@example.com`;
  const { password } = await createUser(prisma, { email, name: `${role} person`, role });
  return { email, password, cookie: await signIn(serverUrl, email, password) };
}
