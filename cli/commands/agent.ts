import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Command } from "commander";

import { forwarderDirOf } from "@/clients/agent-hooks/lib/config.mjs";
import {
  ensureForwarderSecret,
  readForwarderSecret,
  secretFile,
} from "@/clients/agent-hooks/lib/forwarder-secret.mjs";
import { parseServerUrls } from "@/lib/client/server-urls";

import {
  agentConfigFile,
  AGENTS,
  claudeHookFile,
  claudeSettingsFile,
  DEFAULT_FORWARDER_PORT,
  opencodePluginFile,
  opencodePluginStub,
  opencodePluginTarget,
  ourHookEvents,
  PLUGIN_MARK,
  readSettings,
  withOurHooks,
  withoutOurHooks,
  writeSettings,
  type Agent,
  type InstallScope,
} from "../agent/install";
import {
  formatJson,
  jsonStyleOf,
  missingDirs,
  readManifest,
  removeEmptyDirs,
  writeManifest,
} from "../agent/manifest";
import { probePitwall } from "../agent/probe";
import { fail } from "../fail";

const projectDir = path.resolve(import.meta.dirname, "../..");

type ScopeOpts = { project?: string; global?: boolean };

function scopeOf(opts: ScopeOpts): InstallScope {
  if (opts.global && opts.project) fail("use either --project DIR or --global", 2);
  return opts.global
    ? { kind: "global", home: process.env.HOME || os.homedir() }
    : { kind: "project", dir: path.resolve(opts.project ?? ".") };
}

function agentOf(name: string): Agent {
  if (!(AGENTS as readonly string[]).includes(name))
    fail(`unknown agent "${name}" (one of: ${AGENTS.join(", ")})`, 2);
  return name as Agent;
}

/** The URL list as stored for the hooks (comma-separated); exits with code 2 on a bad entry. */
function checkedUrls(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return parseServerUrls(url).join(",");
  } catch (err) {
    return fail(`--url / PITWALL_URL: ${(err as Error).message}`, 2);
  }
}

/** Stores URL(s) and token in the user-level config (mode 600), merging with what is there; records whether install created it. */
function saveCredentials(
  url: string | undefined,
  token: string | undefined,
  planTimeoutS: number | undefined,
  planFallback: string | undefined,
): string | null {
  if (!url && !token && planTimeoutS === undefined && !planFallback) return null;
  const file = agentConfigFile();
  const existed = fs.existsSync(file);
  const current = readSettings(file);
  writeSettings(
    file,
    {
      ...current,
      ...(url ? { url } : {}),
      ...(token ? { token } : {}),
      ...(planTimeoutS !== undefined ? { planTimeoutS } : {}),
      ...(planFallback ? { planFallback } : {}),
    },
    0o600,
  );
  if (!existed) writeManifest(file, { ...readManifest(file), configCreated: true });
  return file;
}

/** Writes `text` to `file` (creating folders), recording in the manifest what was there before. */
function writeRecorded(file: string, text: string): void {
  const config = agentConfigFile();
  const manifest = readManifest(config);
  const earlier = manifest.installs.find((r) => r.file === file);
  const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
  const createdDirs = missingDirs(path.dirname(file));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  // Installing again keeps the first install's "before": uninstall goes back to the person's file.
  const record = earlier ? { ...earlier, after: text } : { file, before, after: text, createdDirs };
  writeManifest(config, {
    ...manifest,
    installs: [...manifest.installs.filter((r) => r.file !== file), record],
  });
}

/**
 * Takes back what install did to `file`: unchanged since install → the file as it was, byte for
 * byte (or gone, with the folders install created, when it did not exist); changed since →
 * `edit(text)` (our entries removed, layout kept), and removed when that leaves nothing of the
 * person's in a file install created. Forgets the file in the manifest; when nothing is
 * installed any more, removes the user config install created.
 */
function takeBack(file: string, edit: (text: string) => string | null): void {
  const config = agentConfigFile();
  const manifest = readManifest(config);
  const record = manifest.installs.find((r) => r.file === file);
  const now = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
  if (record && now === record.after) {
    if (record.before === null) fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, record.before);
  } else if (now !== null) {
    const edited = edit(now);
    if (edited === null || (record?.before === null && edited.trim() === "{}"))
      fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, edited);
  }
  if (record && record.before === null) removeEmptyDirs(record.createdDirs);
  const installs = manifest.installs.filter((r) => r.file !== file);
  if (installs.length === 0 && manifest.configCreated) {
    fs.rmSync(config, { force: true });
    writeManifest(config, { configCreated: false, installs: [] });
  } else writeManifest(config, { ...manifest, installs });
  if (installs.length === 0 && manifest.secretCreated) {
    fs.rmSync(secretFile(forwarderDirOf(process.env)), { force: true });
    writeManifest(config, { ...readManifest(config), secretCreated: false });
  }
}

/** The forwarder port our HTTP hooks post to: $PITWALL_FORWARDER_PORT at install (the hooks read the same variable), else the default. */
function forwarderPortOf(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : DEFAULT_FORWARDER_PORT;
}

/**
 * The secret our HTTP hooks send to the local forwarder, which refuses requests without it (no
 * other local user or process can inject hook events): `<forwarder dir>/secret` (mode 600; see
 * clients/agent-hooks/lib/forwarder-secret.mjs), created when absent and then recorded in the
 * manifest, so the last uninstall removes it. Shared by every install that uses this forwarder.
 */
function forwarderSecret(): string {
  const { secret, created } = ensureForwarderSecret(forwarderDirOf(process.env));
  if (created) {
    const config = agentConfigFile();
    writeManifest(config, { ...readManifest(config), secretCreated: true });
  }
  return secret;
}

/** `agent status`'s line on the local forwarder: its port, whether its secret is installed and whether it runs. */
async function forwarderLine(): Promise<string> {
  const port = forwarderPortOf(process.env.PITWALL_FORWARDER_PORT);
  const dir = forwarderDirOf(process.env);
  const secret = readForwarderSecret(dir);
  let running = "not running (the next Claude Code session starts it)";
  try {
    const res = await fetch(`http://127.0.0.1:${port}/pitwall/health`, {
      signal: AbortSignal.timeout(1000),
    });
    const body = (await res.json()) as { service?: string; pid?: number };
    running =
      body.service === "pitwall-forwarder"
        ? `running (pid ${body.pid})`
        : `PROBLEM: port ${port} is taken by another program (set PITWALL_FORWARDER_PORT and install again)`;
  } catch {
    // nothing answers: not running
  }
  return `local forwarder 127.0.0.1:${port}: ${running}; secret ${secret ? `in ${secretFile(dir)}` : "PROBLEM: missing (run `pitwall agent install claude-code` again)"}`;
}

function install(agent: Agent, scope: InstallScope, planTimeoutS: number): string {
  if (agent === "claude-code") {
    const file = claudeSettingsFile(scope);
    const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
    const forwarder = {
      port: forwarderPortOf(process.env.PITWALL_FORWARDER_PORT),
      secret: forwarderSecret(),
    };
    writeRecorded(
      file,
      formatJson(
        withOurHooks(readSettings(file), claudeHookFile(projectDir), planTimeoutS, forwarder),
        jsonStyleOf(before),
      ),
    );
    return file;
  }
  const file = opencodePluginTarget(scope);
  // Never clobber a plugin of the same name that is not ours.
  if (fs.existsSync(file) && !fs.readFileSync(file, "utf8").startsWith(PLUGIN_MARK))
    fail(`${file} exists and is not Pitwall's plugin; move it away first`);
  writeRecorded(file, opencodePluginStub(opencodePluginFile(projectDir)));
  return file;
}

function uninstall(agent: Agent, scope: InstallScope): string | null {
  if (agent === "claude-code") {
    const file = claudeSettingsFile(scope);
    const settings = readSettings(file);
    if (!ourHookEvents(settings).length) return null;
    takeBack(file, (text) => formatJson(withoutOurHooks(settings), jsonStyleOf(text)));
    return file;
  }
  const file = opencodePluginTarget(scope);
  if (!fs.existsSync(file) || !fs.readFileSync(file, "utf8").startsWith(PLUGIN_MARK)) return null;
  takeBack(file, () => null);
  return file;
}

function installedAt(agent: Agent, scope: InstallScope): string | null {
  if (agent === "claude-code") {
    const file = claudeSettingsFile(scope);
    try {
      const events = ourHookEvents(readSettings(file));
      return events.length ? `${file} (${events.join(", ")})` : null;
    } catch (err) {
      return `${file}: unreadable (${(err as Error).message})`;
    }
  }
  const file = opencodePluginTarget(scope);
  return fs.existsSync(file) && fs.readFileSync(file, "utf8").startsWith(PLUGIN_MARK) ? file : null;
}

/**
 * What `agent install` says about the URL and token: where it stored them, else where the hooks
 * will find them (the user config from an earlier install, or the agent's environment).
 */
function credentialsLine(saved: string | null): string {
  if (saved) return `URL and token in ${saved} (mode 600)`;
  const file = agentConfigFile();
  let stored: Record<string, unknown> = {};
  try {
    stored = readSettings(file);
  } catch {
    // unreadable: as if absent
  }
  if (typeof stored.url === "string" && typeof stored.token === "string" && stored.token)
    return `URL and token: kept as stored in ${file}`;
  return "no URL/token given or stored: the hooks read PITWALL_URL and PITWALL_TOKEN from the agent's environment (or run install again with --url and --token)";
}

/** The URL and token the hooks will use: given on the command line, else the environment, else the stored config. */
function effectiveCredentials(
  url: string | undefined,
  token: string | undefined,
): { url: string; token: string } {
  let stored: Record<string, unknown> = {};
  try {
    stored = readSettings(agentConfigFile());
  } catch {
    // unreadable: as if absent
  }
  const pick = (...vs: unknown[]) =>
    (vs.find((v) => typeof v === "string" && v !== "") as string | undefined) ?? "";
  return {
    url: pick(url, process.env.PITWALL_URL, stored.url).replace(/\/+$/, ""),
    token: pick(token, process.env.PITWALL_TOKEN, stored.token),
  };
}

const parseSeconds = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 10) throw new Error("expected whole seconds ≥ 10");
  return n;
};

/** Registers `pitwall agent install|uninstall|status` and `pitwall hook claude-code`. */
export function registerAgentCommands(program: Command): void {
  const agent = program
    .command("agent")
    .description(
      "connect Claude Code / opencode sessions to Pitwall (todo lists, live state, plan approval)",
    );
  agent
    .command("install")
    .argument("<agent>", AGENTS.join(" | "))
    .description(
      "install the hooks (Claude Code: .claude/settings.local.json; opencode: .opencode/plugins/pitwall.js); merges, idempotent",
    )
    .option("--project <dir>", "install into this project (default: the current folder)")
    .option("--global", "install for every project of this user")
    .option(
      "--url <urls>",
      "Pitwall URL, or several instances comma-separated (failover in turn) (default: $PITWALL_URL); stored in ~/.config/pitwall/agent.json, mode 600",
    )
    .option(
      "--token <token>",
      "worker token (default: $PITWALL_TOKEN); stored there too, never in the project",
    )
    .option(
      "--plan-timeout <seconds>",
      "how long a plan waits for a decision (default 1800)",
      parseSeconds,
    )
    .option(
      "--plan-fallback <mode>",
      "no decision in time or Pitwall unreachable: ask (in the terminal) | deny",
    )
    .option("--offline", "install even when Pitwall refuses the token (401) or does not answer now")
    .action(
      async (
        name: string,
        opts: ScopeOpts & {
          url?: string;
          token?: string;
          planTimeout?: number;
          planFallback?: string;
          offline?: boolean;
        },
      ) => {
        const which = agentOf(name);
        if (opts.planFallback && !["ask", "deny"].includes(opts.planFallback))
          fail("--plan-fallback is ask or deny", 2);
        const scope = scopeOf(opts);
        // A wrong token is said once, loudly, here: the hooks themselves must never stop the agent.
        const { url, token } = effectiveCredentials(opts.url, opts.token);
        // Every instance of a URL list is asked: one refusing the token is enough to stop.
        for (const u of url && token ? (checkedUrls(url) ?? "").split(",") : []) {
          const check = await probePitwall(u, token);
          if (check.kind === "refused" && !opts.offline)
            fail(
              `not installed: Pitwall at ${check.line}; check the token (\`pitwall token create <host>\` makes one), or install anyway with --offline`,
            );
          if (check.kind !== "ok")
            process.stderr.write(
              `WARNING: ${check.line}${check.kind === "unreachable" ? "; the hooks keep frames in their spool until it answers" : ""}\n`,
            );
          else process.stdout.write(`checked: ${check.line}\n`);
        }
        const file = install(which, scope, opts.planTimeout ?? 1800);
        const config = saveCredentials(
          checkedUrls(opts.url ?? process.env.PITWALL_URL),
          opts.token ?? process.env.PITWALL_TOKEN,
          opts.planTimeout,
          opts.planFallback,
        );
        process.stdout.write(`installed the ${which} hooks in ${file}\n`);
        process.stdout.write(`${credentialsLine(config)}\n`);
      },
    );
  agent
    .command("uninstall")
    .argument("<agent>", AGENTS.join(" | "))
    .description("remove only Pitwall's hooks (other hooks and settings stay)")
    .option("--project <dir>", "the project (default: the current folder)")
    .option("--global", "the user-wide install")
    .action((name: string, opts: ScopeOpts) => {
      const file = uninstall(agentOf(name), scopeOf(opts));
      process.stdout.write(
        file
          ? `removed the ${name} hooks from ${file}\n`
          : `no ${name} hooks of Pitwall were installed there\n`,
      );
    });
  agent
    .command("status")
    .description("what is installed where (this project and globally) and whether Pitwall answers")
    .option("--project <dir>", "the project to look at (default: the current folder)")
    .action(async (opts: { project?: string }) => {
      const scopes: InstallScope[] = [
        { kind: "project", dir: path.resolve(opts.project ?? ".") },
        { kind: "global", home: process.env.HOME || os.homedir() },
      ];
      for (const which of AGENTS) {
        for (const scope of scopes) {
          const at = installedAt(which, scope);
          process.stdout.write(`${which} (${scope.kind}): ${at ?? "not installed"}\n`);
        }
      }
      const file = agentConfigFile();
      let stored: Record<string, unknown> = {};
      try {
        stored = readSettings(file);
      } catch (err) {
        process.stdout.write(`config ${file}: ${(err as Error).message}\n`);
      }
      const url = process.env.PITWALL_URL || (typeof stored.url === "string" ? stored.url : "");
      const token =
        process.env.PITWALL_TOKEN || (typeof stored.token === "string" ? stored.token : "");
      process.stdout.write(
        `config: ${fs.existsSync(file) ? file : "none"}; URL ${url || "not set"}; token ${token ? "set" : "not set"}\n`,
      );
      let urls: string[] = [];
      try {
        urls = url ? parseServerUrls(url) : [];
      } catch (err) {
        process.stdout.write(`Pitwall: PROBLEM: ${(err as Error).message}\n`);
      }
      for (const u of urls) {
        const check = await probePitwall(u, token);
        process.stdout.write(
          `Pitwall: ${check.kind === "ok" || check.kind === "no_token" ? "" : "PROBLEM: "}${check.line}\n`,
        );
      }
      process.stdout.write(`${await forwarderLine()}\n`);
    });

  program
    .command("hook")
    .argument("<agent>", "claude-code")
    .description(
      "run the Claude Code hook by hand: reads one hook event (JSON) on stdin, as Claude Code would pass it",
    )
    .action(async (name: string) => {
      if (name !== "claude-code")
        fail(`only claude-code has a command hook (opencode loads a plugin)`, 2);
      const code = await new Promise<number>((resolve) => {
        const child = spawn(process.execPath, [claudeHookFile(projectDir), "claude-code"], {
          stdio: "inherit",
        });
        child.on("exit", (c) => resolve(c ?? 1));
      });
      process.exitCode = code;
    });
}
