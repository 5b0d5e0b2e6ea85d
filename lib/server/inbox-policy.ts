import { z } from "zod";

/**
 * Timeouts and escalation of inbox items, per kind (permission, question, notice), from the
 * server's environment (lib/server/env.ts):
 * - `PITWALL_INBOX_TIMEOUT_S`: the longest an item waits, in seconds; an agent's own shorter
 *   `expiresInS` still wins. `600` (every kind) or `permission=600,question=1800`.
 * - `PITWALL_INBOX_ON_EXPIRY`: what an expired item becomes: `terminal` (the default: the agent
 *   asks in its own terminal) or `deny` (the agent is told no). Approving on expiry is not an
 *   option. `deny` or `permission=deny,question=terminal`.
 * - `PITWALL_INBOX_ESCALATE_AFTER_MIN`: re-notify (webhook) once when an item still waits after
 *   this many minutes. `10` or `permission=5`.
 */

/** Item kinds the policy covers (plans keep their own expiry). */
export const POLICY_KINDS = ["permission", "question", "notice"] as const;
/** One of {@link POLICY_KINDS}. */
export type PolicyKind = (typeof POLICY_KINDS)[number];

/** What happens to an item nobody decided in time. */
export type ExpiryAction = "terminal" | "deny";

/** The parsed policy; a kind missing from a map has no limit / `terminal` / no escalation. */
export interface InboxPolicy {
  timeoutS: Partial<Record<PolicyKind, number>>;
  onExpiry: Partial<Record<PolicyKind, ExpiryAction>>;
  escalateAfterMin: Partial<Record<PolicyKind, number>>;
}

/** No limits, hand back to the terminal, no escalation. */
export const DEFAULT_INBOX_POLICY: InboxPolicy = {
  timeoutS: {},
  onExpiry: {},
  escalateAfterMin: {},
};

/**
 * A zod schema for a per-kind setting: `<value>` (every kind) or `kind=value,kind=value`.
 * @param value the schema of one value (from a string).
 */
export function perKind<T>(value: z.ZodType<T, string>, name: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): Partial<Record<PolicyKind, T>> => {
      if (raw === undefined || raw.trim() === "") return {};
      const out: Partial<Record<PolicyKind, T>> = {};
      const parts = raw
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      for (const part of parts) {
        const eq = part.indexOf("=");
        const kinds = eq < 0 ? [...POLICY_KINDS] : [part.slice(0, eq).trim()];
        const parsed = value.safeParse(eq < 0 ? part : part.slice(eq + 1).trim());
        for (const kind of kinds) {
          if (!(POLICY_KINDS as readonly string[]).includes(kind)) {
            ctx.addIssue({
              code: "custom",
              message: `${name}: unknown kind "${kind}" (one of ${POLICY_KINDS.join(", ")})`,
            });
            return z.NEVER;
          }
          if (!parsed.success) {
            ctx.addIssue({
              code: "custom",
              message: `${name}: "${part}": ${parsed.error.issues[0]?.message ?? "invalid"}`,
            });
            return z.NEVER;
          }
          out[kind as PolicyKind] = parsed.data;
        }
      }
      return out;
    });
}

/** `PITWALL_INBOX_TIMEOUT_S` values: 5 s … 30 days. */
export const timeoutValue = z.coerce
  .number()
  .int()
  .min(5)
  .max(30 * 86_400) as unknown as z.ZodType<number, string>;
/** `PITWALL_INBOX_ON_EXPIRY` values: terminal | deny — never approve. */
export const expiryValue = z.enum(["terminal", "deny"], {
  message: 'use "terminal" or "deny" (an expired item is never approved)',
}) as unknown as z.ZodType<ExpiryAction, string>;
/** `PITWALL_INBOX_ESCALATE_AFTER_MIN` values: 1 min … 7 days. */
export const escalateValue = z.coerce
  .number()
  .int()
  .min(1)
  .max(7 * 1440) as unknown as z.ZodType<number, string>;

/** Seconds an item of `kind` may wait: the agent's `expiresInS`, capped by the policy. */
export function effectiveExpiresInS(policy: InboxPolicy, kind: string, expiresInS: number): number {
  const cap = policy.timeoutS[kind as PolicyKind];
  return cap === undefined ? expiresInS : Math.min(cap, expiresInS);
}

/** The policy of parsed environment `env`. */
export function inboxPolicyOf(env: {
  PITWALL_INBOX_TIMEOUT_S: InboxPolicy["timeoutS"];
  PITWALL_INBOX_ON_EXPIRY: InboxPolicy["onExpiry"];
  PITWALL_INBOX_ESCALATE_AFTER_MIN: InboxPolicy["escalateAfterMin"];
}): InboxPolicy {
  return {
    timeoutS: env.PITWALL_INBOX_TIMEOUT_S,
    onExpiry: env.PITWALL_INBOX_ON_EXPIRY,
    escalateAfterMin: env.PITWALL_INBOX_ESCALATE_AFTER_MIN,
  };
}
