import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

import {
  CLAUDE_EVENTS,
  DEFAULT_FORWARDER_PORT,
  FORWARDER_SECRET_HEADER,
  forwarderHookUrl,
  ourHookEvents,
  withOurHooks,
  withoutOurHooks,
} from "./install";

// `pitwall agent install|uninstall`: merging with other hooks, idempotence, and that no token
// lands in a project file.

const hookFile = "/opt/pitwall/clients/agent-hooks/claude-code.mjs";
const theirs = { matcher: "Bash", hooks: [{ type: "command", command: "./lint.sh" }] };
const fwd = { port: DEFAULT_FORWARDER_PORT, secret: "5".repeat(64) };

test("uninstall removes only our commands: a person's command added to our group stays; key order is kept", () => {
  const once = withOurHooks(
    { model: "sonnet", hooks: { Stop: [theirs] }, permissions: { allow: [] } },
    hookFile,
    1800,
    fwd,
  );
  expect(Object.keys(once)).toEqual(["model", "hooks", "permissions"]);
  const ours = once.hooks!.PostToolUse![0]!;
  const shared = {
    ...once,
    hooks: {
      ...once.hooks!,
      PostToolUse: [
        { ...ours, hooks: [...ours.hooks, { type: "command", command: "./my-audit.sh" }] },
      ],
    },
  };
  const after = withoutOurHooks(shared);
  expect(Object.keys(after)).toEqual(["model", "hooks", "permissions"]);
  expect(after.hooks).toEqual({
    Stop: [theirs],
    PostToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "./my-audit.sh" }] }],
  });
});

test("a Node process starts only at SessionStart and for a permission prompt; every other event is an HTTP hook to the local forwarder carrying the secret", () => {
  const hooks = withOurHooks({}, hookFile, 1800, fwd).hooks!;
  const command = { type: "command", command: `node "${hookFile}" claude-code` };
  const http = {
    type: "http",
    url: `http://127.0.0.1:${DEFAULT_FORWARDER_PORT}/pitwall/claude-code`,
    headers: { "X-Pitwall-Forwarder-Secret": fwd.secret },
    timeout: 2,
  };
  expect(hooks.SessionStart).toEqual([{ hooks: [{ ...command, timeout: 30 }] }]);
  // A permission prompt (the inbox's gate; ExitPlanMode's plan gate) waits for a person: a command hook, every tool.
  expect(hooks.PermissionRequest).toEqual([
    { matcher: "*", hooks: [{ ...command, timeout: 1860 }] },
  ]);
  for (const event of ["UserPromptSubmit", "Notification", "Stop", "SessionEnd"])
    expect(hooks[event]).toEqual([{ hooks: [http] }]);
  expect(hooks.PostToolUse).toEqual([{ matcher: "*", hooks: [http] }]);
  const commands = Object.values(hooks).flatMap((groups) =>
    groups.flatMap((g) => g.hooks.filter((h) => h.type === "command").map(() => g.matcher ?? "")),
  );
  expect(commands).toEqual(["", "*"]);
  // Another port (PITWALL_FORWARDER_PORT at install) goes into the URL; uninstall still knows it as ours.
  const other = withOurHooks({}, hookFile, 1800, { port: 50123, secret: fwd.secret });
  expect(other.hooks!.Stop![0]!.hooks[0]!.url).toBe(forwarderHookUrl(50123));
  expect(withoutOurHooks(other)).toEqual({});
  // A person's own HTTP hook to another URL is not ours.
  const mine = { hooks: [{ type: "http", url: "http://127.0.0.1:9999/my-audit" }] };
  expect(withoutOurHooks({ hooks: { Stop: [mine, ...other.hooks!.Stop!] } })).toEqual({
    hooks: { Stop: [mine] },
  });
});

test("our hooks merge with others, installing twice changes nothing, uninstall removes only ours", () => {
  const before = { permissions: { allow: ["Bash(ls)"] }, hooks: { PostToolUse: [theirs] } };
  const once = withOurHooks(before, hookFile, 1800, fwd);
  expect(withOurHooks(once, hookFile, 1800, fwd)).toEqual(once);
  expect(ourHookEvents(once).sort()).toEqual([...CLAUDE_EVENTS].sort());
  expect(once.hooks!.PostToolUse).toEqual([
    theirs,
    {
      matcher: "*",
      hooks: [
        {
          type: "http",
          url: forwarderHookUrl(DEFAULT_FORWARDER_PORT),
          headers: { [FORWARDER_SECRET_HEADER]: fwd.secret },
          timeout: 2,
        },
      ],
    },
  ]);
  // The plan wait fits in the PermissionRequest hook's timeout.
  expect(once.hooks!.PermissionRequest![0]!.hooks[0]!.timeout).toBe(1860);
  expect(withoutOurHooks(once)).toEqual(before);
  expect(withoutOurHooks({ hooks: { Stop: once.hooks!.Stop! } })).toEqual({});
});

test("the CLI installs into .claude/settings.local.json, the token only into the user config (mode 600); status and uninstall", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-agent-home-"));
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-agent-proj-"));
  fs.mkdirSync(path.join(project, ".claude"));
  fs.writeFileSync(
    path.join(project, ".claude", "settings.json"),
    JSON.stringify({ hooks: { Stop: [theirs] } }),
  );
  const env = {
    ...process.env,
    HOME: home,
    PITWALL_URL: "http://127.0.0.1:9",
    PITWALL_TOKEN: "pw_secret_token",
    PITWALL_AGENT_CONFIG: "",
    PITWALL_FORWARDER_DIR: path.join(home, ".cache", "pitwall", "forwarder-test"),
  };
  const cli = (...args: string[]) =>
    execFileSync(
      process.execPath,
      ["--import", "tsx", path.resolve(import.meta.dirname, "../index.ts"), ...args],
      { env, encoding: "utf8" },
    );
  for (const agent of ["claude-code", "opencode"])
    cli("agent", "install", agent, "--project", project);
  cli("agent", "install", "claude-code", "--project", project);

  const local = JSON.parse(
    fs.readFileSync(path.join(project, ".claude", "settings.local.json"), "utf8"),
  ) as { hooks: Record<string, unknown[]> };
  expect(local.hooks.Stop).toHaveLength(1);
  expect(
    JSON.parse(fs.readFileSync(path.join(project, ".claude", "settings.json"), "utf8")),
  ).toEqual({ hooks: { Stop: [theirs] } });
  const plugin = fs.readFileSync(path.join(project, ".opencode", "plugins", "pitwall.js"), "utf8");
  expect(plugin).toContain("clients/opencode/pitwall.js");
  const projectText = [
    ".claude/settings.local.json",
    ".claude/settings.json",
    ".opencode/plugins/pitwall.js",
  ]
    .map((f) => fs.readFileSync(path.join(project, f), "utf8"))
    .join("\n");
  expect(projectText).not.toContain("pw_secret_token");
  const config = path.join(home, ".config", "pitwall", "agent.json");
  expect(JSON.parse(fs.readFileSync(config, "utf8"))).toEqual({
    url: "http://127.0.0.1:9",
    token: "pw_secret_token",
  });
  expect(fs.statSync(config).mode & 0o777).toBe(0o600);

  // The forwarder secret: created at install (mode 600, beside the forwarder's registrations), in the HTTP hooks' header.
  const secretPath = path.join(home, ".cache", "pitwall", "forwarder-test", "secret");
  const secret = fs.readFileSync(secretPath, "utf8").trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  expect(fs.statSync(secretPath).mode & 0o777).toBe(0o600);
  const postToolUse = local.hooks.PostToolUse as Array<{
    hooks: Array<{ headers?: Record<string, string> }>;
  }>;
  expect(postToolUse[0]!.hooks[0]!.headers).toEqual({ [FORWARDER_SECRET_HEADER]: secret });

  const status = cli("agent", "status", "--project", project);
  expect(status).toMatch(/claude-code \(project\): .*settings\.local\.json \(SessionStart/);
  expect(status).toMatch(/opencode \(project\): .*pitwall\.js/);
  expect(status).toMatch(/Pitwall: PROBLEM: http:\/\/127\.0\.0\.1:9 does not answer/);
  expect(status).toContain(`local forwarder 127.0.0.1:${DEFAULT_FORWARDER_PORT}: `);
  expect(status).toContain(`secret in ${secretPath}`);

  cli("agent", "uninstall", "claude-code", "--project", project);
  cli("agent", "uninstall", "opencode", "--project", project);
  // Install created settings.local.json: uninstall removes it (no empty "{}" left behind).
  expect(fs.existsSync(path.join(project, ".claude", "settings.local.json"))).toBe(false);
  expect(fs.existsSync(path.join(project, ".opencode", "plugins", "pitwall.js"))).toBe(false);
  // The last uninstall removes the secret install created.
  expect(fs.existsSync(secretPath)).toBe(false);
  // Seven CLI processes (tsx start-up each): seconds apiece on a busy machine.
}, 180_000);

test("installing again without --url/--token says the stored ones are kept; a foreign opencode plugin of the same name is never overwritten", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-agent-home-"));
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-agent-proj-"));
  const env = {
    ...process.env,
    HOME: home,
    PITWALL_URL: "",
    PITWALL_TOKEN: "",
    PITWALL_AGENT_CONFIG: "",
    PITWALL_FORWARDER_DIR: path.join(home, ".cache", "pitwall", "forwarder-test"),
  };
  const cli = (...args: string[]) =>
    spawnSync(
      process.execPath,
      ["--import", "tsx", path.resolve(import.meta.dirname, "../index.ts"), ...args],
      { env, encoding: "utf8" },
    );
  expect(cli("agent", "install", "claude-code", "--project", project).stdout).toContain(
    "no URL/token given or stored",
  );
  expect(
    cli(
      "agent",
      "install",
      "claude-code",
      "--project",
      project,
      "--url",
      "http://127.0.0.1:9",
      "--token",
      "pw_x",
    ).stdout,
  ).toContain("URL and token in");
  expect(cli("agent", "install", "opencode", "--project", project).stdout).toContain(
    `URL and token: kept as stored in ${path.join(home, ".config", "pitwall", "agent.json")}`,
  );

  const theirs = path.join(project, ".opencode", "plugins", "pitwall.js");
  fs.writeFileSync(theirs, "export const Mine = async () => ({});\n");
  const refused = cli("agent", "install", "opencode", "--project", project);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain("is not Pitwall's plugin");
  expect(fs.readFileSync(theirs, "utf8")).toBe("export const Mine = async () => ({});\n");
}, 180_000);

test("uninstall gives back the settings byte for byte (tabs, key order, no final newline) and removes what install created: the config with the token, new settings files, new folders", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-agent-home-"));
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-agent-proj-"));
  const env = {
    ...process.env,
    HOME: home,
    PITWALL_URL: "",
    PITWALL_TOKEN: "",
    PITWALL_AGENT_CONFIG: "",
    PITWALL_FORWARDER_DIR: path.join(home, ".cache", "pitwall", "forwarder-test"),
  };
  const cli = (...args: string[]) =>
    spawnSync(
      process.execPath,
      ["--import", "tsx", path.resolve(import.meta.dirname, "../index.ts"), ...args],
      { env, encoding: "utf8" },
    );
  const local = path.join(project, ".claude", "settings.local.json");
  fs.mkdirSync(path.dirname(local));
  const original =
    '{\n\t"permissions": {"allow": ["Bash(ls)"]},\n\t"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./lint.sh"}]}]},\n\t"model": "sonnet"\n}';
  fs.writeFileSync(local, original);
  const config = path.join(home, ".config", "pitwall", "agent.json");

  expect(
    cli(
      "agent",
      "install",
      "claude-code",
      "--project",
      project,
      "--url",
      "http://127.0.0.1:9",
      "--token",
      "pw_secret",
      "--offline",
    ).status,
  ).toBe(0);
  expect(cli("agent", "install", "opencode", "--project", project).status).toBe(0);
  const installed = fs.readFileSync(local, "utf8");
  expect(installed).toContain('\n\t"hooks"'); // the person's tab indent is kept
  expect(Object.keys(JSON.parse(installed) as object)).toEqual(["permissions", "hooks", "model"]);
  expect(fs.existsSync(config)).toBe(true);

  expect(cli("agent", "uninstall", "claude-code", "--project", project).status).toBe(0);
  expect(fs.readFileSync(local, "utf8")).toBe(original);
  // The opencode install still needs the config.
  expect(fs.existsSync(config)).toBe(true);
  expect(cli("agent", "uninstall", "opencode", "--project", project).status).toBe(0);
  expect(fs.existsSync(path.join(project, ".opencode"))).toBe(false);
  expect(fs.existsSync(config)).toBe(false);
  expect(fs.readdirSync(path.dirname(config))).toEqual([]);

  // Changed by the person after install: only our entries go, their change and layout stay.
  expect(cli("agent", "install", "claude-code", "--project", project, "--offline").status).toBe(0);
  const edited = fs.readFileSync(local, "utf8").replace('"model": "sonnet"', '"model": "opus"');
  fs.writeFileSync(local, edited);
  expect(cli("agent", "uninstall", "claude-code", "--project", project).status).toBe(0);
  expect(fs.readFileSync(local, "utf8")).toBe(
    original
      .replace('"model": "sonnet"', '"model": "opus"')
      .replace('{"allow": ["Bash(ls)"]}', '{\n\t\t"allow": [\n\t\t\t"Bash(ls)"\n\t\t]\n\t}')
      .replace(
        '{"Stop": [{"hooks": [{"type": "command", "command": "./lint.sh"}]}]}',
        JSON.stringify(
          { Stop: [{ hooks: [{ type: "command", command: "./lint.sh" }] }] },
          null,
          "\t",
        ).replace(/\n/g, "\n\t"),
      ),
  );
}, 240_000);
