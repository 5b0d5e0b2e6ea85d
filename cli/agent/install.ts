import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * `pitwall agent install|uninstall|status`: where the agent hooks go and how they are merged.
 * Claude Code: hook entries in `.claude/settings.local.json` of a project (never the committed
 * settings.json) or `~/.claude/settings.json` (--global). opencode: a plugin file in
 * `.opencode/plugins/` or `~/.config/opencode/plugins/`. The URL and token go to the user-level
 * config `~/.config/pitwall/agent.json` (mode 600), never into a project.
 */

/** The agents we install into. */
export const AGENTS = ["claude-code", "opencode"] as const;
export type Agent = (typeof AGENTS)[number];

/** Claude Code hook events our hooks handle. */
export const CLAUDE_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "Notification",
  "Stop",
  "StopFailure",
  "SessionEnd",
] as const;

/** The local forwarder's default loopback port (clients/agent-hooks/lib/config.mjs DEFAULT_FORWARDER_PORT). */
export const DEFAULT_FORWARDER_PORT = 47291;
/** URL path of the forwarder's hook endpoint (clients/agent-hooks/lib/forwarder.mjs HOOK_PATH). */
const FORWARDER_HOOK_PATH = "/pitwall/claude-code";
/** The URL our HTTP hooks post to. */
export const forwarderHookUrl = (port: number) => `http://127.0.0.1:${port}${FORWARDER_HOOK_PATH}`;
const OUR_URL = /^http:\/\/127\.0\.0\.1:\d+\/pitwall\/claude-code$/;

/** Absolute path of the bundled Claude Code hook in this checkout. */
export const claudeHookFile = (projectDir: string) =>
  path.join(projectDir, "clients", "agent-hooks", "claude-code.mjs");
/** Absolute path of the bundled opencode plugin in this checkout. */
export const opencodePluginFile = (projectDir: string) =>
  path.join(projectDir, "clients", "opencode", "pitwall.js");
/** Substring that marks a hook command as ours (uninstall removes only these). */
const OUR_MARK = path.join("clients", "agent-hooks", "claude-code.mjs");

/** Where one install goes: a project folder, or the user's global config. */
export type InstallScope = { kind: "project"; dir: string } | { kind: "global"; home: string };

/** The settings file our Claude Code hooks are written to for `scope`. */
export function claudeSettingsFile(scope: InstallScope): string {
  return scope.kind === "project"
    ? path.join(scope.dir, ".claude", "settings.local.json")
    : path.join(scope.home, ".claude", "settings.json");
}

/** The plugin file our opencode plugin is written to for `scope`. */
export function opencodePluginTarget(scope: InstallScope): string {
  return scope.kind === "project"
    ? path.join(scope.dir, ".opencode", "plugins", "pitwall.js")
    : path.join(scope.home, ".config", "opencode", "plugins", "pitwall.js");
}

type Hook = {
  type: string;
  command?: string;
  url?: string;
  headers?: Record<string, string>;
  timeout?: number;
};
type HookEntry = { matcher?: string; hooks: Hook[] };
type Settings = Record<string, unknown> & { hooks?: Record<string, HookEntry[]> };

const isOurCommand = (h: { command?: unknown; url?: unknown } | null | undefined) =>
  (typeof h?.command === "string" && h.command.includes(OUR_MARK)) ||
  (typeof h?.url === "string" && OUR_URL.test(h.url));

const isOurs = (entry: HookEntry) => Array.isArray(entry?.hooks) && entry.hooks.some(isOurCommand);

/**
 * Removes our hook commands from Claude Code settings, keeping every other hook and setting: a
 * person's command in the same group as ours stays (only a group left empty goes), an event left
 * without groups goes, and keys keep their order (`hooks` stays where it was).
 */
export function withoutOurHooks(settings: Settings): Settings {
  if (!settings.hooks || typeof settings.hooks !== "object") return settings;
  const hooks: Record<string, HookEntry[]> = {};
  for (const [event, entries] of Object.entries(settings.hooks)) {
    if (!Array.isArray(entries)) {
      hooks[event] = entries;
      continue;
    }
    const kept = entries.flatMap((e) => {
      if (!isOurs(e)) return [e];
      const others = e.hooks.filter((h) => !isOurCommand(h));
      return others.length ? [{ ...e, hooks: others }] : [];
    });
    if (kept.length) hooks[event] = kept;
  }
  const out: Settings = {};
  for (const [k, v] of Object.entries(settings)) {
    if (k !== "hooks") out[k] = v;
    else if (Object.keys(hooks).length) out.hooks = hooks;
  }
  return out;
}

/** Header our HTTP hooks carry the forwarder secret in (clients/agent-hooks/lib/forwarder.mjs SECRET_HEADER). */
export const FORWARDER_SECRET_HEADER = "X-Pitwall-Forwarder-Secret";

/** Where our HTTP hooks post and the per-install secret they prove themselves with. */
export interface ForwarderTarget {
  port: number;
  /** Random per-install secret (the user config's `forwarderSecret`); the forwarder refuses a hook without it. */
  secret: string;
}

/**
 * Our hook groups per Claude Code event. A Node process starts only where one is needed:
 * SessionStart (token check, registering the session with the local forwarder, the heartbeat) and
 * PermissionRequest (every tool: the inbox's permission gate, and ExitPlanMode's plan gate; both
 * wait for a person, timeout planTimeoutS + 60 s). Every other event, each tool call's PostToolUse
 * among them, is an HTTP hook posting to the forwarder on 127.0.0.1:`forwarder.port` with the
 * install's secret in a header; it answers at once (timeout 2 s in case it hangs). PostToolUse
 * matches every tool ("*"): any tool call is the evidence that a permission prompt or a plan
 * dialog was answered (states "waiting" -> "working"); a tool call that changes nothing sends
 * nothing to Pitwall.
 */
export function ourHookGroups(
  hookFile: string,
  planTimeoutS: number,
  forwarder: ForwarderTarget,
): Record<(typeof CLAUDE_EVENTS)[number], HookEntry[]> {
  const command = (timeout: number): Hook => ({
    type: "command",
    command: `node ${JSON.stringify(hookFile)} claude-code`,
    timeout,
  });
  const http: Hook = {
    type: "http",
    url: forwarderHookUrl(forwarder.port),
    headers: { [FORWARDER_SECRET_HEADER]: forwarder.secret },
    timeout: 2,
  };
  return {
    SessionStart: [{ hooks: [command(30)] }],
    UserPromptSubmit: [{ hooks: [http] }],
    PostToolUse: [{ matcher: "*", hooks: [http] }],
    // An interrupted (Esc) or failed tool call; no Stop hook follows an interrupt.
    PostToolUseFailure: [{ matcher: "*", hooks: [http] }],
    PermissionRequest: [{ matcher: "*", hooks: [command(planTimeoutS + 60)] }],
    Notification: [{ hooks: [http] }],
    Stop: [{ hooks: [http] }],
    // A turn that ended on an API error (no Stop hook then).
    StopFailure: [{ hooks: [http] }],
    SessionEnd: [{ hooks: [http] }],
  };
}

/**
 * Claude Code settings with our hook groups (ourHookGroups) added, replacing ours and keeping
 * others', so installing twice changes nothing.
 */
export function withOurHooks(
  settings: Settings,
  hookFile: string,
  planTimeoutS: number,
  forwarder: ForwarderTarget,
): Settings {
  const clean = withoutOurHooks(settings);
  const hooks: Record<string, HookEntry[]> = { ...(clean.hooks ?? {}) };
  const groups = ourHookGroups(hookFile, planTimeoutS, forwarder);
  for (const event of CLAUDE_EVENTS) hooks[event] = [...(hooks[event] ?? []), ...groups[event]];
  // `hooks` keeps its place among the keys when it was there; else it goes last.
  return "hooks" in clean
    ? Object.fromEntries(Object.entries(clean).map(([k, v]) => [k, k === "hooks" ? hooks : v]))
    : { ...clean, hooks };
}

/** Whether Claude Code settings carry our hooks (and for how many events). */
export function ourHookEvents(settings: Settings): string[] {
  return Object.entries(settings.hooks ?? {})
    .filter(([, entries]) => Array.isArray(entries) && entries.some(isOurs))
    .map(([event]) => event);
}

/** Reads a JSON settings file; missing → {}. @throws Error when the file exists but is not a JSON object (we never overwrite what we cannot read). */
export function readSettings(file: string): Settings {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return {};
  }
  const value = JSON.parse(text) as unknown;
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new Error(`${file} is not a JSON object; fix or remove it first`);
  return value as Settings;
}

/** Writes a JSON settings file (2-space indent), creating its folder. */
export function writeSettings(file: string, settings: Settings, mode?: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, mode ? { mode } : undefined);
  if (mode) fs.chmodSync(file, mode);
}

/** First line of the opencode plugin stub we write; marks the file as ours. */
export const PLUGIN_MARK =
  "// Pitwall agent plugin, installed by `npx pitwall agent install opencode`.";

/** The opencode plugin stub: re-exports the checkout's plugin (so updating the checkout updates it). */
export function opencodePluginStub(pluginFile: string): string {
  return `${PLUGIN_MARK}\n// Remove with \`npx pitwall agent uninstall opencode\`.\nexport { PitwallPlugin } from ${JSON.stringify(pathToFileURL(pluginFile).href)};\n`;
}

/** The user-level hook config file (mode 600): {url, token, planTimeoutS?, planFallback?}. */
export function agentConfigFile(env: Record<string, string | undefined> = process.env): string {
  return (
    env.PITWALL_AGENT_CONFIG ||
    path.join(env.HOME || os.homedir(), ".config", "pitwall", "agent.json")
  );
}
