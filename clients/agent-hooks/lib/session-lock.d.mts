/** Runs `fn` while holding the per-session lock under cfg.stateDir (waits up to waitMs, default 2000 ms, then runs anyway). */
export function withSessionLock<T>(
  cfg: { stateDir: string },
  session: string,
  fn: () => T | Promise<T>,
  waitMs?: number,
): Promise<T>;
