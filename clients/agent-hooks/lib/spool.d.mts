/** Types of spool.mjs (plain JS so hooks run without a TypeScript loader). */
import type { HookConfig } from "./config.mjs";

type Cfg = Pick<HookConfig, "token" | "stateDir"> & Partial<HookConfig>;
/** The server URLs of a config (`urls`, else the single `url`). */
export function serverUrls(cfg: Cfg): string[];
/** The server URLs in the order to try them: the one that answered last first. */
export function urlsToTry(cfg: Cfg): string[];
/** POSTs frames to /api/ingest, failing over on network errors, timeouts and 5xx; throws when none answered 200. */
export function postFrames(
  cfg: Cfg,
  frames: unknown[],
  timeoutMs?: number,
): Promise<{ results?: Array<{ id: string; ok: boolean; code?: string; message?: string }> }>;
/** Spools, then flushes; never throws; false when the frames wait for the background flusher. */
export function deliver(cfg: Cfg, frames: unknown[], entryFile: string): Promise<boolean>;
/** Sends everything in the spool; true when the spool is empty afterwards. */
export function flushSpool(cfg: Cfg, log?: (line: string) => void): Promise<boolean>;
