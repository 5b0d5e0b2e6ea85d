import { z } from "zod";

import { parseTrustedProxies } from "./auth/client-address";
import { escalateValue, expiryValue, perKind, timeoutValue } from "./inbox-policy";

/**
 * Server configuration, parsed once from `process.env`. Nothing else in the server reads
 * `process.env`; code that needs configuration receives it as an argument.
 */
const envSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default("0.0.0.0"),
  PITWALL_DATA_DIR: z.string().optional(),
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  /** Slack-compatible incoming webhook for stale/failed/alert notifications (optional). */
  PITWALL_WEBHOOK_URL: z.string().url().optional(),
  /** Base URL used in links of notifications (default http://localhost:PORT). */
  PITWALL_PUBLIC_URL: z.string().url().optional(),
  /**
   * Key that signs session cookies (at least 32 characters). Unset: one is generated at first
   * start and kept in the database (table ServerSecret), shared by every app instance.
   */
  PITWALL_AUTH_SECRET: z
    .string()
    .min(32, "PITWALL_AUTH_SECRET must be at least 32 characters (e.g. `openssl rand -base64 32`)")
    .optional(),
  /** Ingest flush: at most this many frames per transaction. */
  PITWALL_INGEST_BATCH_FRAMES: z.coerce.number().int().min(1).max(10_000).default(500),
  /** A file to append ingest timing lines to (lib/server/ingest/trace.ts; benches only). Unset: off. */
  PITWALL_INGEST_TRACE: z.string().min(1).optional(),
  /** Seconds between re-checks of open /ws/live sockets' sessions (a signed-out browser is cut off within this). */
  PITWALL_LIVE_RECHECK_S: z.coerce.number().int().min(1).max(3600).default(60),
  /** Period of the notifier loop (stale runs, alerts, alert rules), ms. */
  PITWALL_NOTIFY_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** Longest wait of an inbox item, seconds: `600` or `permission=600,question=1800` (lib/server/inbox-policy.ts). */
  PITWALL_INBOX_TIMEOUT_S: perKind(timeoutValue, "PITWALL_INBOX_TIMEOUT_S"),
  /** What an expired inbox item becomes: `terminal` (default) or `deny`, e.g. `permission=deny`; never approve. */
  PITWALL_INBOX_ON_EXPIRY: perKind(expiryValue, "PITWALL_INBOX_ON_EXPIRY"),
  /** Re-notify (webhook) once when an inbox item still waits after this many minutes: `10` or `permission=5`. */
  PITWALL_INBOX_ESCALATE_AFTER_MIN: perKind(escalateValue, "PITWALL_INBOX_ESCALATE_AFTER_MIN"),
  /**
   * Reverse proxies (comma-separated IPs/CIDRs) whose `X-Forwarded-For` names the client for
   * sign-in limits; from any other peer the header is ignored and the socket address counts.
   */
  PITWALL_TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseTrustedProxies(value);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
        return z.NEVER;
      }
    }),
});

/** Parsed server configuration. */
export type Env = z.output<typeof envSchema>;

/**
 * Parses the given environment (default `process.env`); empty values count as unset.
 * @throws Error listing every invalid variable.
 */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // An empty variable (DATABASE_URL=) means unset, as in most tools.
  const cleaned = Object.fromEntries(
    Object.entries(source).filter(([, v]) => v !== undefined && v !== ""),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid environment:\n  ${lines.join("\n  ")}`);
  }
  return parsed.data;
}
