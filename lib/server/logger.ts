import pino, { type Logger } from "pino";

/** The process-wide structured logger (JSON lines on stdout; `LOG_LEVEL` sets the level). */
export const logger: Logger = pino({
  // Read directly (not via env.ts) so that configuration errors themselves can be logged.
  level: process.env.LOG_LEVEL ?? "info",
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
});

export type { Logger };
