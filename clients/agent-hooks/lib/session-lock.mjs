// Pitwall agent hooks: a per-session lock around "read state, build frames, write state".
// Claude Code runs the PostToolUse hooks of parallel tool calls (e.g. two TaskUpdate calls in one
// model reply) as concurrent processes; without the lock both read snapshot counter n and both
// send n+1. The lock is a directory (mkdir is atomic on every local file system); a lock older
// than STALE_MS is left over from a killed hook and is broken.
import fs from "node:fs";
import path from "node:path";

const STALE_MS = 10_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` while holding the lock of `session` under cfg.stateDir; waits up to `waitMs`
 * (polling every 5 ms), then runs `fn` anyway (a hook must never block the agent for long).
 * @returns what `fn` returns.
 */
export async function withSessionLock(cfg, session, fn, waitMs = 2000) {
  const dir = path.join(
    cfg.stateDir,
    "locks",
    `${String(session)
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .slice(0, 150)}.lock`,
  );
  fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + waitMs;
  let held = false;
  while (!held) {
    try {
      fs.mkdirSync(dir);
      held = true;
    } catch {
      try {
        if (Date.now() - fs.statSync(dir).mtimeMs > STALE_MS)
          fs.rmSync(dir, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      if (Date.now() > deadline) break;
      await sleep(5);
    }
  }
  try {
    return await fn();
  } finally {
    if (held) fs.rmSync(dir, { recursive: true, force: true });
  }
}
