/** The agent's process id: the hook's parent, skipping shells. */
export function agentPid(startPid?: number): number;
/** Starts the session's heartbeat process unless one runs; returns whether it started one. */
export function ensureHeartbeat(
  cfg: { stateDir: string },
  session: string,
  entryFile: string,
  agent?: number,
  endSource?: string,
  nodePath?: string,
  transcript?: string,
): boolean;
/** Stops the session's heartbeat process. */
export function stopHeartbeat(cfg: { stateDir: string }, session: string): void;
/** The heartbeat loop: posts a heartbeat naming the session every cfg.heartbeatS s while process `agent` lives. */
export function runHeartbeat(
  cfg: { stateDir: string; heartbeatS: number; url: string; token: string },
  session: string,
  agent: number,
  postFrames: (cfg: never, frames: unknown[], timeoutMs?: number) => Promise<unknown>,
  sleep?: (ms: number) => Promise<void>,
  endSource?: string,
  everyFewSeconds?: (() => unknown) | null,
  /** Claude Code's transcript file: an Esc-interrupt there is reported as idle. */
  transcript?: string,
): Promise<void>;
