// Pitwall agent hooks: the local forwarder. Claude Code runs a command hook as a new process per
// event (a Node start: 50-400 ms the person waits, per tool call). Instead, the per-tool-call
// events go to Claude Code's HTTP hooks, posted to this small persistent process on
// 127.0.0.1:<cfg.forwarderPort> (`node claude-code.mjs forward`). It answers at once (`{}`), then,
// in arrival order, applies the event to the session's state, spools the frames on disk and
// flushes the spool to Pitwall in the background (retrying with back-off), so Pitwall down or hung
// never adds to the agent's wait.
//
// Only our own hooks get in: every request but the health check must carry the forwarder's secret
// (header X-Pitwall-Forwarder-Secret; lib/forwarder-secret.mjs: `pitwall agent install` creates it in
// <forwarderDir>/secret, mode 600, and writes it into the HTTP hooks' headers). Anything else is
// refused (401) and applies nothing, so no other local user or process that cannot read the user's
// files (nor a web page: a custom header needs a CORS preflight we never grant) can inject hook
// events, register a session with its own config, or redirect a session to another Pitwall.
//
// Sessions register at SessionStart (the one command hook that runs per session) with their
// config (URL, token, state dir: several installs can share one forwarder) and their agent's pid;
// registrations are kept on disk (mode 600), so a forwarder restarted after being killed still
// knows them. The session's heartbeat process (lib/heartbeat.mjs) checks the forwarder every few
// seconds and starts it again when it is gone. The forwarder exits after cfg.forwarderIdleS with
// no request, no live registered agent and nothing left to flush.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

import { parseHookInput } from "./claude-events.mjs";
import { readForwarderSecret } from "./forwarder-secret.mjs";
import { applyEvent } from "./handle-event.mjs";
import { ensureHeartbeat, stopHeartbeat } from "./heartbeat.mjs";
import { openNotice } from "./notice.mjs";
import { flushSpool, spoolFrames } from "./spool.mjs";

/** URL path Claude Code's HTTP hooks post to (install writes `http://127.0.0.1:<port>` + this). */
export const HOOK_PATH = "/pitwall/claude-code";
/** Header our HTTP hooks (and registrations) carry the install's secret in. */
export const SECRET_HEADER = "x-pitwall-forwarder-secret";
const REGISTER_PATH = "/pitwall/register";
const HEALTH_PATH = "/pitwall/health";
const MAX_BODY_BYTES = 5_000_000;

const safe = (session) =>
  String(session)
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .slice(0, 150);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `given` equals the non-empty `expected` secret (constant time). */
export function secretMatches(given, expected) {
  if (typeof given !== "string" || typeof expected !== "string" || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** The forwarder's base URL for `cfg`. */
export const forwarderUrl = (cfg) => `http://127.0.0.1:${cfg.forwarderPort}`;

/** One small request to the forwarder: resolves {status, body}; rejects on connection error or timeout. */
function request(cfg, method, urlPath, payload, timeoutMs) {
  return new Promise((resolve, reject) => {
    const headers = payload
      ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
      : {};
    if (cfg.forwarderSecret) headers[SECRET_HEADER] = cfg.forwarderSecret;
    const req = http.request(
      `${forwarderUrl(cfg)}${urlPath}`,
      { method, timeout: timeoutMs, headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** Whether a forwarder answers on cfg.forwarderPort (within `timeoutMs`). */
export async function forwarderUp(cfg, timeoutMs = 500) {
  try {
    const r = await request(cfg, "GET", HEALTH_PATH, undefined, timeoutMs);
    return r.status === 200 && r.body.includes('"pitwall-forwarder"');
  } catch {
    return false;
  }
}

/** Starts `node <entryFile> forward` detached (it outlives the hook). Never throws. */
export function startForwarder(entryFile, nodePath = process.execPath) {
  try {
    spawn(nodePath, [entryFile, "forward"], {
      detached: true,
      stdio: "ignore",
      env: process.env,
    }).unref();
  } catch {
    // the next check starts it
  }
}

/** Starts the forwarder unless one answers. @returns whether one was started. Never throws. */
export async function ensureForwarder(cfg, entryFile) {
  if (await forwarderUp(cfg)) return false;
  startForwarder(entryFile);
  return true;
}

/**
 * Tells the forwarder (starting it when none answers, waiting up to `waitMs` for it) which config
 * and agent process `session` belongs to. @returns null when registered, else the line to show
 * (no secret installed, refused, no forwarder). Never throws.
 */
export async function registerSession(cfg, session, agentPid, entryFile, waitMs = 3000) {
  const again = "run `npx pitwall agent install claude-code` again";
  if (!cfg.forwarderSecret)
    return `no forwarder secret in ${cfg.forwarderDir} (an install from before it existed?): tool-call updates of this session will NOT reach Pitwall; ${again}`;
  const payload = JSON.stringify({ session, agentPid, cfg });
  const deadline = Date.now() + waitMs;
  let started = false;
  for (;;) {
    try {
      const r = await request(cfg, "POST", REGISTER_PATH, payload, 1000);
      if (r.status === 200) return null;
      return `the local forwarder on 127.0.0.1:${cfg.forwarderPort} refused this session (${r.status}${r.body ? ` ${r.body.slice(0, 200)}` : ""}): tool-call updates will NOT reach Pitwall; ${again}`;
    } catch {
      if (!started) startForwarder(entryFile);
      started = true;
      if (Date.now() > deadline)
        return `no local forwarder answers on 127.0.0.1:${cfg.forwarderPort}: tool-call updates of this session will NOT reach Pitwall (is the port taken by another program? set PITWALL_FORWARDER_PORT and ${again})`;
      await sleep(50);
    }
  }
}

/**
 * The forwarder process. `fallbackCfg` (the forwarder's own loadConfig()) serves sessions that
 * never registered; `entryFile` is claude-code.mjs (to start heartbeats). Resolves when it exits
 * (idle, or the port is taken: another forwarder runs).
 * @returns {Promise<{reason: string}>}
 */
export async function runForwarder(
  fallbackCfg,
  entryFile,
  { log = () => undefined, checkEveryMs = 1000 } = {},
) {
  const dir = fallbackCfg.forwarderDir;
  const sessionsDir = path.join(dir, "sessions");
  fs.mkdirSync(sessionsDir, { recursive: true, mode: 0o700 });
  /** session id -> {cfg, agentPid} */
  const sessions = new Map();
  const flushing = new Map(); // stateDir -> {again: boolean}
  let queue = Promise.resolve();
  let lastRequestMs = Date.now();

  const registrationOf = (session) => {
    if (sessions.has(session)) return sessions.get(session);
    try {
      const r = JSON.parse(
        fs.readFileSync(path.join(sessionsDir, `${safe(session)}.json`), "utf8"),
      );
      if (r?.cfg?.stateDir) {
        sessions.set(session, r);
        return r;
      }
    } catch {
      // never registered (or the file is gone): the forwarder's own config
    }
    return null;
  };

  // Flushes one state dir's spool; while a flush runs, a new kick makes it go round once more.
  const kick = (cfg) => {
    const running = flushing.get(cfg.stateDir);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    flushing.set(cfg.stateDir, state);
    void (async () => {
      const deadline = Date.now() + cfg.retryForS * 1000;
      let delayMs = 1000;
      try {
        for (;;) {
          state.again = false;
          let done = false;
          try {
            done = await flushSpool(cfg, log);
          } catch {
            // Pitwall down or hung: retried below
          }
          if (done && !state.again) return;
          if (done) continue;
          if (Date.now() > deadline) return;
          await sleep(delayMs);
          delayMs = Math.min(delayMs * 2, 10_000);
        }
      } finally {
        flushing.delete(cfg.stateDir);
      }
    })();
  };

  const handleEvent = async (event) => {
    const reg = registrationOf(event.session_id);
    const cfg = reg?.cfg ?? fallbackCfg;
    if (!cfg.url || !cfg.token) return;
    // ExitPlanMode's PermissionRequest belongs to the plan gate (a command hook): nothing here.
    if (event.hook_event_name === "PermissionRequest" && event.tool_name === "ExitPlanMode") return;
    const out = await applyEvent(cfg, event);
    if (out.frames.length) {
      spoolFrames(cfg, out.frames);
      kick(cfg);
    }
    // "Waiting for your input": a notice in the inbox (closed by Pitwall when the session moves on).
    if (event.hook_event_name === "Notification") void openNotice(cfg, event);
    if (event.hook_event_name === "UserPromptSubmit" && reg?.agentPid)
      ensureHeartbeat(
        cfg,
        event.session_id,
        entryFile,
        reg.agentPid,
        "",
        undefined,
        typeof event.transcript_path === "string" ? event.transcript_path : "",
      );
    if (event.hook_event_name === "SessionEnd") {
      stopHeartbeat(cfg, event.session_id);
      sessions.delete(event.session_id);
      fs.rmSync(path.join(sessionsDir, `${safe(event.session_id)}.json`), { force: true });
    }
  };

  // The secret as stored now: read at start and again when a request's differs (installed anew).
  let secret = fallbackCfg.forwarderSecret || readForwarderSecret(dir);
  const authorized = (req) => {
    const given = req.headers[SECRET_HEADER];
    if (secretMatches(given, secret)) return true;
    secret = readForwarderSecret(dir) || secret;
    return secretMatches(given, secret);
  };

  const server = http.createServer((req, res) => {
    lastRequestMs = Date.now();
    if (req.method === "GET" && req.url === HEALTH_PATH) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ service: "pitwall-forwarder", pid: process.pid }));
      return;
    }
    let body = "";
    let size = 0;
    req.setEncoding("utf8");
    req.on("data", (c) => {
      size += Buffer.byteLength(c);
      if (size <= MAX_BODY_BYTES) body += c;
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end();
        return;
      }
      if (req.method === "POST" && req.url === REGISTER_PATH) {
        let r;
        try {
          r = JSON.parse(body);
        } catch {
          r = null;
        }
        if (!r || typeof r.session !== "string" || !r.cfg || typeof r.cfg.stateDir !== "string") {
          res
            .writeHead(400, { "content-type": "application/json" })
            .end(JSON.stringify({ error: "bad registration" }));
          return;
        }
        if (!authorized(req)) {
          res
            .writeHead(401, { "content-type": "application/json" })
            .end(JSON.stringify({ error: "missing or wrong forwarder secret" }));
          return;
        }
        const reg = { cfg: r.cfg, agentPid: Number(r.agentPid) || 0 };
        sessions.set(r.session, reg);
        try {
          fs.writeFileSync(path.join(sessionsDir, `${safe(r.session)}.json`), JSON.stringify(reg), {
            mode: 0o600,
          });
        } catch {
          // kept in memory only
        }
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      if (req.method !== "POST" || req.url !== HOOK_PATH) {
        res.writeHead(404).end();
        return;
      }
      const parsed = parseHookInput(body);
      if (!parsed.ok) {
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "malformed hook event" }));
        return log(`pitwall forwarder: ignored a malformed hook event (${parsed.error})`);
      }
      if (!authorized(req)) {
        res
          .writeHead(401, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "missing or wrong forwarder secret" }));
        return log("pitwall forwarder: refused a hook without the install's secret");
      }
      // Answer, then work: the agent waits for this answer and for nothing else.
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      queue = queue
        .then(() => handleEvent(parsed.event))
        .catch((err) => log(`pitwall forwarder: ${err?.message ?? err}`));
    });
  });

  const listening = await new Promise((resolve) => {
    server.once("error", (err) => resolve(err));
    server.listen(fallbackCfg.forwarderPort, "127.0.0.1", () => resolve(null));
  });
  if (listening)
    return { reason: `port ${fallbackCfg.forwarderPort}: ${listening.code ?? listening.message}` };

  // Registrations of earlier runs (a forwarder killed and started again).
  try {
    for (const name of fs.readdirSync(sessionsDir)) {
      try {
        const r = JSON.parse(fs.readFileSync(path.join(sessionsDir, name), "utf8"));
        if (!r?.agentPid || !alive(r.agentPid))
          fs.rmSync(path.join(sessionsDir, name), { force: true });
      } catch {
        fs.rmSync(path.join(sessionsDir, name), { force: true });
      }
    }
  } catch {
    // none
  }

  return await new Promise((resolve) => {
    const timer = setInterval(() => {
      const idle = Date.now() - lastRequestMs > fallbackCfg.forwarderIdleS * 1000;
      if (!idle || flushing.size) return;
      const liveAgent =
        [...sessions.values()].some((r) => r.agentPid && alive(r.agentPid)) ||
        fs.readdirSync(sessionsDir).some((name) => {
          try {
            const pid = JSON.parse(fs.readFileSync(path.join(sessionsDir, name), "utf8"))?.agentPid;
            return pid && alive(pid);
          } catch {
            return false;
          }
        });
      if (liveAgent) return;
      clearInterval(timer);
      server.close(() => resolve({ reason: "idle" }));
      server.closeAllConnections();
    }, checkEveryMs);
  });
}
