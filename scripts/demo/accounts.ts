import { PrismaPg } from "@prisma/adapter-pg";

import { PrismaClient } from "@/generated/prisma/client";
import { alertRuleInput, type AlertRuleInput } from "@/lib/alerts/rule";
import { ConflictError } from "@/lib/server/errors";
import { createAlertRule, listAlertRules } from "@/lib/server/repositories/alert-rules";
import { createToken } from "@/lib/server/repositories/tokens";
import { createUser } from "@/lib/server/repositories/users";

import type { DemoHost } from "./context";

/** The demo's sign-in account (an admin, so every page and action can be tried). */
export const DEMO_USER = {
  email: "demo@pitwall.local",
  name: "Demo",
  password: "pitwall-demo",
} as const;

/**
 * The demo's alert rules (/alerts): the hung generation worker trips "Generation stopped producing"
 * 30 s after it hangs (about 45 s in) and it stays firing; the serving engine's KV cache crosses 60 % at each load peak and
 * drops back (fired, then resolved); the drafter's one NaN loss trips the NaN rule when a check
 * lands on it.
 */
export const DEMO_ALERT_RULES: readonly AlertRuleInput[] = [
  {
    name: "Generation stopped producing",
    kind: "generation",
    metricKey: "prompts_per_s",
    condition: "no_data",
    forSeconds: 30,
    enabled: true,
  },
  {
    name: "Serving KV cache above 60 %",
    kind: "serving",
    metricKey: "serving/kv_cache_usage",
    condition: "above",
    threshold: 0.6,
    forSeconds: 20,
    enabled: true,
  },
  {
    name: "Drafter loss is NaN",
    kind: "training",
    metricKey: "loss",
    condition: "nan",
    forSteps: 1,
    enabled: true,
  },
].map((r) => alertRuleInput.parse(r));

/**
 * Prepares the demo's database: one worker token per simulated host (as `npx pitwall token
 * create <host>` does), the demo account {@link DEMO_USER} (kept when it exists from an
 * earlier start) and the alert rules {@link DEMO_ALERT_RULES} (those not there yet, by name), and
 * archives the runs of earlier starts (keys `demo-…`). Returns the token secrets.
 * @throws whatever Prisma throws when the database cannot be reached.
 */
export async function prepareDemoAccounts(
  databaseUrl: string,
  hosts: readonly DemoHost[],
): Promise<Record<DemoHost, string>> {
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max: 1 }),
  });
  try {
    const tokens: Partial<Record<DemoHost, string>> = {};
    for (const host of hosts) tokens[host] = (await createToken(prisma, host)).token;
    await createUser(prisma, { ...DEMO_USER, role: "admin" }).catch((err: unknown) => {
      if (!(err instanceof ConflictError)) throw err;
    });
    // A restart on the same data dir starts a new set of runs: the earlier starts' runs are
    // archived (hidden from the overview and /runs, listed under "Archived") instead of repeated.
    await prisma.run.updateMany({
      where: { key: { startsWith: "demo-" }, archivedAt: null },
      data: { archivedAt: new Date() },
    });
    const existing = new Set((await listAlertRules(prisma)).map((r) => r.name));
    for (const rule of DEMO_ALERT_RULES)
      if (!existing.has(rule.name)) await createAlertRule(prisma, rule, DEMO_USER.email);
    return tokens as Record<DemoHost, string>;
  } finally {
    await prisma.$disconnect();
  }
}
