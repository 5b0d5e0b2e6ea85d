import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";
import { ConflictError } from "@/lib/server/errors";
import { createToken } from "@/lib/server/repositories/tokens";
import { createUser } from "@/lib/server/repositories/users";
import type { DemoHost } from "./context";

/** The demo's sign-in account (an admin, so every page and action can be tried). */
export const DEMO_USER = { email: "demo@pitwall.local", name: "Demo", password: "pitwall-demo" } as const;

/**
 * Prepares the demo's database: one worker token per simulated host (as `npx pitwall token
 * create <host>` does) and the demo account {@link DEMO_USER} (kept when it exists from an
 * earlier start). Returns the token secrets.
 * @throws whatever Prisma throws when the database cannot be reached.
 */
export async function prepareDemoAccounts(databaseUrl: string, hosts: readonly DemoHost[]): Promise<Record<DemoHost, string>> {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 1 }) });
  try {
    const tokens: Partial<Record<DemoHost, string>> = {};
    for (const host of hosts) tokens[host] = (await createToken(prisma, host)).token;
    await createUser(prisma, { ...DEMO_USER, role: "admin" }).catch((err: unknown) => {
      if (!(err instanceof ConflictError)) throw err;
    });
    return tokens as Record<DemoHost, string>;
  } finally {
    await prisma.$disconnect();
  }
}
