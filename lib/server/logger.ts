import { format } from "node:util";
import pino, { type Logger } from "pino";

import { isDatabaseOutage } from "./database/outage";
import { markDatabaseOutage } from "./database/outage-mark";
import { LogLimiter } from "./log-limit";

const PINO_WARN = 40;
// One limiter per process: server.ts (tsx) and Next's bundle each load this module.
const globalForLog = globalThis as typeof globalThis & { __pitwallLogLimiter?: LogLimiter };
const limiter = (globalForLog.__pitwallLogLimiter ??= new LogLimiter());

/**
 * The process-wide structured logger (JSON lines on stdout; `LOG_LEVEL` sets the level).
 * Warn and error lines are rate-limited together (log-limit.ts: a burst of 3, then one a second;
 * the next line carries `suppressed`), so an outage cannot flood the log; info and debug are not.
 */
export const logger: Logger = pino({
  // Read directly (not via env.ts) so that configuration errors themselves can be logged.
  level: process.env.LOG_LEVEL ?? "info",
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
  hooks: {
    logMethod(args, method, level) {
      if (level < PINO_WARN) return method.apply(this, args);
      const slot = limiter.take();
      if (!slot.ok) return;
      if (slot.suppressed === 0) return method.apply(this, args);
      const [first, ...rest] = args as unknown[];
      if (first && typeof first === "object" && !(first instanceof Error))
        return method.apply(this, [
          { ...first, suppressed: slot.suppressed },
          ...rest,
        ] as Parameters<typeof method>);
      return method.apply(this, [
        { suppressed: slot.suppressed, ...(first instanceof Error ? { err: first } : {}) },
        ...(first instanceof Error ? rest : args),
      ] as Parameters<typeof method>);
    },
  },
});

/**
 * Sends `console.*` through {@link logger}, so every line the process writes is JSON (Next.js
 * prints request errors with console.error in its own format) and rate-limited like the rest.
 */
export function routeConsoleToLogger(log: Logger = logger): void {
  const text = (args: unknown[]) => format(...args);
  console.error = (...args: unknown[]) => {
    if (args.some(isDatabaseOutage)) markDatabaseOutage();
    log.error({ component: "console" }, text(args));
  };
  console.warn = (...args: unknown[]) => log.warn({ component: "console" }, text(args));
  console.log = (...args: unknown[]) => log.info({ component: "console" }, text(args));
  console.info = (...args: unknown[]) => log.info({ component: "console" }, text(args));
}

export type { Logger };
