import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// A wrong token is said loudly once, at install: `pitwall agent install` asks the real server and
// refuses a token it answers 401 to (nothing written) unless --offline; `agent status` says
// PROBLEM for it; a good token is confirmed.

let server: SharedTestServer;
let prisma: PrismaClient;
let token: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "install-box")).token;
});

afterAll(async () => {
  await prisma?.$disconnect();
});

test("install refuses a token the server answers 401 to (nothing written) unless --offline; a good token is confirmed; status names the problem", () => {
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
  const settings = path.join(project, ".claude", "settings.local.json");
  const config = path.join(home, ".config", "pitwall", "agent.json");

  const refused = cli(
    "agent",
    "install",
    "claude-code",
    "--project",
    project,
    "--url",
    server.url,
    "--token",
    "pw_wrong_token",
  );
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain(
    `not installed: Pitwall at ${server.url} answers but refuses the token (401)`,
  );
  expect(refused.stderr).toContain("--offline");
  expect(fs.existsSync(settings)).toBe(false);
  expect(fs.existsSync(config)).toBe(false);

  const offline = cli(
    "agent",
    "install",
    "claude-code",
    "--project",
    project,
    "--url",
    server.url,
    "--token",
    "pw_wrong_token",
    "--offline",
  );
  expect(offline.status).toBe(0);
  expect(offline.stderr).toContain("WARNING:");
  expect(fs.existsSync(settings)).toBe(true);
  expect(cli("agent", "status", "--project", project).stdout).toContain(
    `Pitwall: PROBLEM: ${server.url} answers but refuses the token (401)`,
  );

  const good = cli(
    "agent",
    "install",
    "claude-code",
    "--project",
    project,
    "--url",
    server.url,
    "--token",
    token,
  );
  expect(good.status).toBe(0);
  expect(good.stdout).toContain(`checked: ${server.url} answers and accepts the token`);
  expect(cli("agent", "status", "--project", project).stdout).toContain(
    `Pitwall: ${server.url} answers and accepts the token`,
  );
}, 180_000);
