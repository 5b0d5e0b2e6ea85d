// Pitwall agent hooks: configuration. Plain JavaScript (Node >= 20, no dependencies), because it
// runs inside every agent hook call. The one place the hooks read process.env.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { readForwarderSecret } from "./forwarder-secret.mjs";

/** Default user-level config file (mode 600, written by `pitwall agent install`): {url, token, planTimeoutS?, planFallback?}. */
export function defaultConfigFile(env = process.env) {
  return (
    env.PITWALL_AGENT_CONFIG ||
    path.join(env.HOME || os.homedir(), ".config", "pitwall", "agent.json")
  );
}

/** The forwarder's default loopback port (see lib/forwarder.mjs). */
export const DEFAULT_FORWARDER_PORT = 47291;

/** A valid TCP port from `value`, else DEFAULT_FORWARDER_PORT. */
export function forwarderPort(value) {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : DEFAULT_FORWARDER_PORT;
}

/**
 * The local forwarder's folder (registrations, secret): $PITWALL_FORWARDER_DIR, else
 * `<the user's home>/.cache/pitwall/forwarder-<port>`. The home is the account's (passwd), not
 * $HOME: the port is one per machine, so every process of the user that can reach it, whatever
 * its $HOME (a throwaway HOME for a clean agent profile, say), must find the same secret.
 */
export function forwarderDirOf(env = process.env, file = {}) {
  let home;
  try {
    home = os.userInfo().homedir;
  } catch {
    home = "";
  }
  return (
    env.PITWALL_FORWARDER_DIR ||
    path.join(
      home || env.HOME || os.homedir(),
      ".cache",
      "pitwall",
      `forwarder-${forwarderPort(env.PITWALL_FORWARDER_PORT ?? file.forwarderPort)}`,
    )
  );
}

function num(value, fallback) {
  const n = Number(value);
  return value !== undefined && value !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
}

/**
 * Server URLs from PITWALL_URL or the config file's `url`: one URL, several comma-separated, or
 * (file only) an array. Entries that are not http(s) URLs are dropped; trailing slashes removed.
 * @returns {string[]}
 */
export function parseUrls(value) {
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) =>
    typeof v === "string" ? v.split(",") : [],
  );
  const out = [];
  for (const part of parts) {
    const text = part.trim().replace(/\/+$/, "");
    if (!text) continue;
    try {
      const u = new URL(text);
      if ((u.protocol === "http:" || u.protocol === "https:") && !out.includes(text))
        out.push(text);
    } catch {
      // not a URL: skipped
    }
  }
  return out;
}

/**
 * The hooks' settings: environment first (PITWALL_URL, PITWALL_TOKEN, PITWALL_PLAN_TIMEOUT_S,
 * PITWALL_PLAN_FALLBACK=ask|deny, PITWALL_AGENT_STATE_DIR, PITWALL_SEND_PROMPTS=1,
 * PITWALL_HOOK_SEND_TIMEOUT_MS, PITWALL_SPOOL_RETRY_S, PITWALL_HEARTBEAT_S,
 * PITWALL_PERMISSION_TIMEOUT_S (default 600), PITWALL_PERMISSION_SEND_TIMEOUT_MS (default 2000),
 * PITWALL_FORWARDER_PORT, PITWALL_FORWARDER_IDLE_S, PITWALL_FORWARDER_DIR), then the user config file. Never throws:
 * a missing or unreadable file counts as empty. `urls` are the server instances in order (several
 * with PITWALL_URL=http://a:8080,http://b:8080: requests fail over from one to the next); `url` is
 * the first, "" when none.
 * `startCheckTimeoutMs` bounds SessionStart's token check (once per session, so longer than a
 * frame's send: a loaded server answering in 2 s is not "does not answer").
 * `forwarderPort` is the loopback port of the local forwarder (lib/forwarder.mjs) that Claude
 * Code's HTTP hooks post to; `forwarderIdleS` how long it lingers with no live agent; `forwarderDir` where it keeps the
 * sessions' registrations; `forwarderSecret` its secret (<forwarderDir>/secret, written by
 * `pitwall agent install` and put into the HTTP hooks' header) without which it refuses a request.
 * @returns {{url: string, urls: string[], token: string, stateDir: string, planTimeoutS: number, planFallback: "ask"|"deny", sendTimeoutMs: number, startCheckTimeoutMs: number, retryForS: number, sendPrompts: boolean, heartbeatS: number, permissionTimeoutS: number, permissionSendTimeoutMs: number, forwarderPort: number, forwarderDir: string, forwarderIdleS: number, forwarderSecret: string}}
 */
export function loadConfig(env = process.env) {
  let file = {};
  try {
    const parsed = JSON.parse(fs.readFileSync(defaultConfigFile(env), "utf8"));
    if (parsed && typeof parsed === "object") file = parsed;
  } catch {
    // no config file: environment only
  }
  const str = (v) => (typeof v === "string" ? v : "");
  const urls = parseUrls(env.PITWALL_URL || file.url);
  const forwarderDir = forwarderDirOf(env, file);
  return {
    url: urls[0] ?? "",
    urls,
    token: env.PITWALL_TOKEN || str(file.token),
    stateDir:
      env.PITWALL_AGENT_STATE_DIR ||
      str(file.stateDir) ||
      path.join(env.HOME || os.homedir(), ".cache", "pitwall", "agent-hooks"),
    planTimeoutS: num(env.PITWALL_PLAN_TIMEOUT_S ?? file.planTimeoutS, 1800),
    planFallback: (env.PITWALL_PLAN_FALLBACK ?? file.planFallback) === "deny" ? "deny" : "ask",
    sendTimeoutMs: num(env.PITWALL_HOOK_SEND_TIMEOUT_MS, 1500),
    startCheckTimeoutMs: num(env.PITWALL_HOOK_START_CHECK_TIMEOUT_MS, 3000),
    retryForS: num(env.PITWALL_SPOOL_RETRY_S ?? file.spoolRetryS, 900),
    sendPrompts: env.PITWALL_SEND_PROMPTS === "1" || file.sendPrompts === true,
    heartbeatS: Math.max(1, num(env.PITWALL_HEARTBEAT_S, 30)),
    permissionTimeoutS: num(env.PITWALL_PERMISSION_TIMEOUT_S ?? file.permissionTimeoutS, 600),
    permissionSendTimeoutMs: num(env.PITWALL_PERMISSION_SEND_TIMEOUT_MS, 2000),
    forwarderPort: forwarderPort(env.PITWALL_FORWARDER_PORT ?? file.forwarderPort),
    forwarderDir,
    forwarderIdleS: Math.max(1, num(env.PITWALL_FORWARDER_IDLE_S, 600)),
    forwarderSecret: readForwarderSecret(forwarderDir),
  };
}
