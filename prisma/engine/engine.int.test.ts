// Runs the real Prisma CLI through the schema engine shim (prisma/engine/schema-engine) against
// its own embedded PostgreSQL, with the project's prisma/schema.prisma and prisma/migrations.
// A Prisma upgrade that breaks the shim, or a schema change without a migration, fails here.

import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { beforeAll, expect, inject, test } from "vitest";

const run = promisify(execFile);

const projectDir = fileURLToPath(new URL("../..", import.meta.url));
const prismaBin = path.join(projectDir, "node_modules", ".bin", "prisma");
const engineBin = path.join(projectDir, "prisma", "engine", "schema-engine");
const SCHEMA = "prisma/schema.prisma";
const MIGRATIONS = "prisma/migrations";

let serverUrl: URL;

/** Connection string for `database` on the test server. */
function databaseUrl(database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Runs the Prisma CLI from the project root against `url`; never throws on a non-zero exit. */
async function prisma(args: string[], url: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    PRISMA_SCHEMA_ENGINE_BINARY: engineBin,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  };
  delete env.SHADOW_DATABASE_URL;
  try {
    const { stdout, stderr } = await run(prismaBin, args, { cwd: projectDir, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    const code = typeof failed.code === "number" ? failed.code : 1;
    return { code, stdout: failed.stdout ?? "", stderr: `${failed.stderr ?? ""}${code === 1 ? String(error) : ""}` };
  }
}

/** Table names of the models in schema.prisma (honouring `@@map`). */
async function modelTables(): Promise<string[]> {
  const schema = await fs.readFile(path.join(projectDir, SCHEMA), "utf8");
  return [...schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)].map(
    ([, name, body]) => body?.match(/@@map\(\s*(?:name:\s*)?"([^"]+)"/)?.[1] ?? name!,
  );
}

beforeAll(() => {
  // The PostgreSQL server of the test run (test/support/global-setup.ts); every database this
  // file creates has a unique name.
  serverUrl = new URL(inject("pgAdminUrl"));
});

test("the wasm schema engine matches the CLI's engines hash", async () => {
  const { code, stdout } = await prisma(["version", "--json"], databaseUrl("postgres"));
  expect(code).toBe(0);
  const versions = JSON.parse(stdout.slice(stdout.indexOf("{"))) as Record<string, string>;
  expect(versions["schema-engine"]).toContain(`schema-engine-cli ${versions["default-engines-hash"]}`);
});

test("migrate deploy applies prisma/migrations to an empty database", async () => {
  const url = databaseUrl("engine_deploy");
  await query(databaseUrl("postgres"), "CREATE DATABASE engine_deploy");

  const deploy = await prisma(["migrate", "deploy"], url);
  expect(deploy.code, deploy.stdout + deploy.stderr).toBe(0);

  const rows = await query<{ table_name: string }>(
    url,
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
  );
  const tables = rows.map((row) => row.table_name);
  expect(tables).toContain("_prisma_migrations");
  for (const table of await modelTables()) expect(tables).toContain(table);

  // Introspecting the migrated database finds nothing to change.
  const diff = await prisma(["migrate", "diff", "--from-config-datasource", "--to-schema", SCHEMA, "--exit-code"], url);
  expect(diff.code, diff.stdout + diff.stderr).toBe(0);
});

test("prisma/migrations produce exactly prisma/schema.prisma", async () => {
  const url = databaseUrl("postgres");
  const diff = await prisma(["migrate", "diff", "--from-migrations", MIGRATIONS, "--to-schema", SCHEMA, "--exit-code"], url);
  // Exit code 2 means schema.prisma changed without a migration: run `prisma migrate dev`.
  expect(diff.code, diff.stdout + diff.stderr).toBe(0);
  expect(diff.stdout).toContain("No difference detected");

  // The temporary shadow database is dropped again.
  const shadows = await query(url, "SELECT datname FROM pg_database WHERE datname LIKE 'prisma_migrate_shadow_db_%'");
  expect(shadows).toEqual([]);
  // Builds a shadow database from every migration: 3 s quiet, over 30 s at load 20 (2026-12-06).
}, 120_000);

test("migrate diff from empty renders a CREATE TABLE per model", async () => {
  const diff = await prisma(["migrate", "diff", "--from-empty", "--to-schema", SCHEMA, "--script"], databaseUrl("postgres"));
  expect(diff.code, diff.stderr).toBe(0);
  for (const table of await modelTables()) expect(diff.stdout).toContain(`CREATE TABLE "${table}"`);
});
