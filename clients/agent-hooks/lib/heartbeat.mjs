// Pitwall agent hooks: the session's sign of life. Hooks only run on events, so a long Bash call
// and a killed agent look alike from Pitwall. At SessionStart (and each prompt, in case it was
// missed) the hook makes sure one small background process per session runs
// (`node claude-code.mjs heartbeat <session> <agent pid>`): every cfg.heartbeatS (30 s) it posts a
// `heartbeat` frame naming the session while the agent process lives, and exits when it is gone
// (or at SessionEnd). Pitwall shows a session with no event and no heartbeat for 90 s as
// "no signal". Cost: one sleeping Node process per live session, one small POST per 30 s.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import { watchTranscript } from "./interrupt-watch.mjs";

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "fish"]);
const pidFile = (cfg, session) =>
  path.join(
    cfg.stateDir,
    "heartbeats",
    `${String(session)
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .slice(0, 150)}.pid`,
  );

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `pid`'s command name and parent pid from /proc, or null (no /proc, or gone). */
function procInfo(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    return { comm, ppid };
  } catch {
    return null;
  }
}

/** The agent's process: the hook's parent, skipping the shells Claude Code runs hook commands in. */
export function agentPid(startPid = process.ppid) {
  let pid = startPid;
  for (let i = 0; i < 4; i++) {
    const info = procInfo(pid);
    if (!info || !SHELLS.has(info.comm) || info.ppid <= 1) return pid;
    pid = info.ppid;
  }
  return pid;
}

/**
 * Starts the session's heartbeat process unless one runs already (pid file). `endSource` (e.g.
 * "opencode"): when the agent process ends, the heartbeat process reports the session `ended`
 * for that source (opencode has no session-end hook); without it a gone agent just falls silent
 * ("no signal"). `node` runs it (`nodePath`; opencode's own runtime is not Node). `transcript`:
 * Claude Code's transcript file, watched for Esc-interrupts (see runHeartbeat). Never throws.
 */
export function ensureHeartbeat(
  cfg,
  session,
  entryFile,
  agent = agentPid(),
  endSource = "",
  nodePath = process.execPath,
  transcript = "",
) {
  try {
    const file = pidFile(cfg, session);
    const running = Number(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : 0);
    if (running && alive(running)) return false;
    const args = [
      entryFile,
      "heartbeat",
      String(session),
      String(agent),
      ...(endSource || transcript ? [endSource || "-"] : []),
      ...(transcript ? [transcript] : []),
    ];
    spawn(nodePath, args, { detached: true, stdio: "ignore", env: process.env }).unref();
    return true;
  } catch {
    return false;
  }
}

/** Stops the session's heartbeat process (SessionEnd). Never throws. */
export function stopHeartbeat(cfg, session) {
  try {
    const file = pidFile(cfg, session);
    const pid = Number(fs.readFileSync(file, "utf8"));
    fs.rmSync(file, { force: true });
    if (
      pid &&
      (procInfo(pid) === null ||
        fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("heartbeat"))
    )
      process.kill(pid, "SIGTERM");
  } catch {
    // none running
  }
}

/**
 * The heartbeat loop (runs in the background process): posts `{type: "heartbeat", sessions:
 * [session]}` every cfg.heartbeatS while process `agent` lives; a failed post is tried again
 * within 5 s. Injectable post and sleep for tests. `everyFewSeconds` (optional) runs
 * every 3 s while the agent lives: Claude Code's heartbeat starts the local forwarder again when
 * it is gone (lib/forwarder.mjs). `transcript` (optional, Claude Code's transcript_path): an
 * Esc-interrupt written there (no hook runs for it) is reported as the session going idle at the
 * interrupt's time, within about a second (lib/interrupt-watch.mjs).
 */
export async function runHeartbeat(
  cfg,
  session,
  agent,
  postFrames,
  sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
  endSource = "",
  everyFewSeconds = null,
  transcript = "",
) {
  const file = pidFile(cfg, session);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, String(process.pid));
  const key = String(session).slice(0, 200);
  const watcher = transcript ? watchTranscript(fs, transcript) : null;
  let interruptAt = null;
  let beats = 0;
  try {
    // Liveness is checked every second, beats are sent every cfg.heartbeatS.
    for (
      let nextBeat = 0, nextCheck = 0;
      alive(agent);
      await sleep(Math.min(1000, cfg.heartbeatS * 1000))
    ) {
      const now = Date.now();
      // The beat first (the first one at once: the session's sign of life); a failed one is tried
      // again within 5 s rather than a whole interval later. The second comes 5 s after the first:
      // a first beat can reach Pitwall before the session's first frame (that one spooled while
      // Pitwall was slow) and then names no session yet.
      if (now >= nextBeat) {
        try {
          await postFrames(
            cfg,
            [
              {
                v: 1,
                id: `cc:${key}:hb:${now}`.slice(0, 200),
                type: "heartbeat",
                ts: now,
                sessions: [key],
              },
            ],
            5000,
          );
          nextBeat = now + (beats++ === 0 ? Math.min(5, cfg.heartbeatS) : cfg.heartbeatS) * 1000;
        } catch {
          nextBeat = now + Math.min(5, cfg.heartbeatS) * 1000;
        }
      }
      interruptAt = watcher?.check(Date.now()) ?? interruptAt;
      if (interruptAt !== null) {
        const frame = {
          v: 1,
          id: `cc:${key}:act:${interruptAt}:interrupted`.slice(0, 200),
          type: "session.activity",
          session: key,
          source: "claude-code",
          state: "idle",
          ts: interruptAt,
          detail: "interrupted by the user",
        };
        // Sent once; Pitwall down: tried again on the next round (the id keeps it exactly once).
        interruptAt = await postFrames(cfg, [frame], 5000).then(
          () => null,
          () => interruptAt,
        );
      }
      if (everyFewSeconds && now >= nextCheck) {
        nextCheck = now + 3000;
        await Promise.resolve(everyFewSeconds()).catch(() => undefined);
      }
    }
    if (endSource) {
      const now = Date.now();
      await postFrames(
        cfg,
        [
          {
            v: 1,
            id: `hb:${key}:ended:${now}`.slice(0, 200),
            type: "session.activity",
            session: key,
            source: endSource,
            state: "ended",
            ts: now,
            detail: "the agent process ended",
          },
        ],
        5000,
      ).catch(() => undefined);
    }
  } finally {
    try {
      if (fs.readFileSync(file, "utf8") === String(process.pid)) fs.rmSync(file, { force: true });
    } catch {
      // removed by stopHeartbeat
    }
  }
}
