import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Command } from "commander";

import { parseServerUrls } from "@/lib/client/server-urls";

import {
  checkedUrls,
  credentialsLine,
  effectiveCredentials,
  saveCredentials,
} from "../agent/credentials";
import { forwarderLine } from "../agent/forwarder-setup";
import {
  agentConfigFile,
  AGENTS,
  claudeHookFile,
  readSettings,
  type Agent,
  type InstallScope,
} from "../agent/install";
import { install, installedAt, projectDir, uninstall } from "../agent/installed-files";
import { probePitwall } from "../agent/probe";
import { fail } from "../fail";

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
