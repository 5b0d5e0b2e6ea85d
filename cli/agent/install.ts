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

/** Claude Code hook events our hook handles (one entry each, same command). */
export const CLAUDE_EVENTS = ["SessionStart", "UserPromptSubmit", "PostToolUse", "PermissionRequest", "Notification", "Stop", "SessionEnd"] as const;

/** Absolute path of the bundled Claude Code hook in this checkout. */
export const claudeHookFile = (projectDir: string) => path.join(projectDir, "clients", "agent-hooks", "claude-code.mjs");
/** Absolute path of the bundled opencode plugin in this checkout. */
export const opencodePluginFile = (projectDir: string) => path.join(projectDir, "clients", "opencode", "pitwall.js");
/** Substring that marks a hook command as ours (uninstall removes only these). */
const OUR_MARK = path.join("clients", "agent-hooks", "claude-code.mjs");

/** Where one install goes: a project folder, or the user's global config. */
export type InstallScope = { kind: "project"; dir: string } | { kind: "global"; home: string };

/** The settings file our Claude Code hooks are written to for `scope`. */
export function claudeSettingsFile(scope: InstallScope): string {
  return scope.kind === "project" ? path.join(scope.dir, ".claude", "settings.local.json") : path.join(scope.home, ".claude", "settings.json");
}

/** The plugin file our opencode plugin is written to for `scope`. */
export function opencodePluginTarget(scope: InstallScope): string {
  return scope.kind === "project" ? path.join(scope.dir, ".opencode", "plugins", "pitwall.js") : path.join(scope.home, ".config", "opencode", "plugins", "pitwall.js");
}

type HookEntry = { matcher?: string; hooks: Array<{ type: string; command: string; timeout?: number }> };
type Settings = Record<string, unknown> & { hooks?: Record<string, HookEntry[]> };

const isOurs = (entry: HookEntry) => Array.isArray(entry?.hooks) && entry.hooks.some((h) => typeof h?.command === "string" && h.command.includes(OUR_MARK));

const isOurCommand = (h: { command?: unknown } | null | undefined) => typeof h?.command === "string" && h.command.includes(OUR_MARK);

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

/**
 * Claude Code settings with our hook entries for every event in CLAUDE_EVENTS (replacing ours,
 * keeping others', so installing twice changes nothing). The PermissionRequest entry's timeout
 * (s) covers the plan wait: planTimeoutS + 60; the others 30 s.
 */
export function withOurHooks(settings: Settings, hookFile: string, planTimeoutS: number): Settings {
  const clean = withoutOurHooks(settings);
  const hooks: Record<string, HookEntry[]> = { ...(clean.hooks ?? {}) };
  const command = `node ${JSON.stringify(hookFile)} claude-code`;
  for (const event of CLAUDE_EVENTS) {
    const entry: HookEntry = { hooks: [{ type: "command", command, timeout: event === "PermissionRequest" ? planTimeoutS + 60 : 30 }] };
    if (event === "PostToolUse" || event === "PermissionRequest") entry.matcher = "*";
    hooks[event] = [...(hooks[event] ?? []), entry];
  }
  // `hooks` keeps its place among the keys when it was there; else it goes last.
  return "hooks" in clean ? Object.fromEntries(Object.entries(clean).map(([k, v]) => [k, k === "hooks" ? hooks : v])) : { ...clean, hooks };
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
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error(`${file} is not a JSON object; fix or remove it first`);
  return value as Settings;
}

/** Writes a JSON settings file (2-space indent), creating its folder. */
export function writeSettings(file: string, settings: Settings, mode?: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, mode ? { mode } : undefined);
  if (mode) fs.chmodSync(file, mode);
}

/** First line of the opencode plugin stub we write; marks the file as ours. */
export const PLUGIN_MARK = "// Pitwall agent plugin, installed by `npx pitwall agent install opencode`.";

/** The opencode plugin stub: re-exports the checkout's plugin (so updating the checkout updates it). */
export function opencodePluginStub(pluginFile: string): string {
  return `${PLUGIN_MARK}\n// Remove with \`npx pitwall agent uninstall opencode\`.\nexport { PitwallPlugin } from ${JSON.stringify(pathToFileURL(pluginFile).href)};\n`;
}

/** The user-level hook config file (mode 600): {url, token, planTimeoutS?, planFallback?}. */
export function agentConfigFile(env: Record<string, string | undefined> = process.env): string {
  return env.PITWALL_AGENT_CONFIG || path.join(env.HOME || os.homedir(), ".config", "pitwall", "agent.json");
}
