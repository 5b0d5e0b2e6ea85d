import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

import { recordTestCost } from "./test-costs";

/** Name of the migrated template database every test database is cloned from. */
export const TEMPLATE_DB = "pitwall_test_template";

/**
 * Creates a fresh, migrated database for one test file (a clone of the template; ~100 ms) and
 * returns its URL. Tests use unique data per test on top, never global resets.
 */
export async function createTestDatabase(): Promise<string> {
  return cloneTemplateDatabase(inject("pgAdminUrl"));
}

/**
 * Creates a fresh clone of the migrated template on the server of `adminUrl` (a superuser URL)
 * and returns its URL. For code outside test files (global setup); tests call createTestDatabase.
 */
export async function cloneTemplateDatabase(adminUrl: string): Promise<string> {
  const name = `pitwall_t_${randomBytes(6).toString("hex")}`;
  const startedMs = Date.now();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  recordTestCost("database-clone", Date.now() - startedMs);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
