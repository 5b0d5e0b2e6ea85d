/** Types of forwarder.mjs (plain JS so hooks run without a TypeScript loader). */
import type { HookConfig } from "./config.mjs";

/** URL path Claude Code's HTTP hooks post to. */
export const HOOK_PATH: string;
/** Header the HTTP hooks and registrations carry the forwarder's secret in (lower case). */
export const SECRET_HEADER: string;
/** Whether `given` equals the non-empty `expected` secret (constant time). */
export function secretMatches(given: unknown, expected: unknown): boolean;
/** The forwarder's base URL (`http://127.0.0.1:<cfg.forwarderPort>`). */
export function forwarderUrl(cfg: { forwarderPort: number }): string;
/** Whether a forwarder answers on cfg.forwarderPort. */
export function forwarderUp(cfg: { forwarderPort: number }, timeoutMs?: number): Promise<boolean>;
/** Starts `node <entryFile> forward` detached. */
export function startForwarder(entryFile: string, nodePath?: string): void;
/** Starts the forwarder unless one answers; returns whether one was started. */
export function ensureForwarder(cfg: HookConfig, entryFile: string): Promise<boolean>;
/** Registers `session`'s config and agent pid with the forwarder (starting it when needed); null when registered, else the line to show. */
export function registerSession(
  cfg: HookConfig,
  session: string,
  agentPid: number,
  entryFile: string,
  waitMs?: number,
): Promise<string | null>;
/** The forwarder process loop; resolves when it exits (idle, or the port is taken). */
export function runForwarder(
  fallbackCfg: HookConfig,
  entryFile: string,
  opts?: { log?: (line: string) => void; checkEveryMs?: number },
): Promise<{ reason: string }>;
