import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";

import { startEmbeddedPostgres } from "@/lib/server/database/embedded";
import { migrateDeploy } from "@/lib/server/database/migrate";

import { TEMPLATE_DB } from "./db";
import { startTestServerBroker } from "./shared-server";

const projectDir = path.resolve(import.meta.dirname, "../..");

/**
 * Starts one fresh embedded PostgreSQL for the whole test run (in a temp folder, on a free port)
 * and migrates a template database; each test file clones it (`createTestDatabase`). With
 * PITWALL_TEST_ADMIN_URL set (a superuser URL of any PostgreSQL 14+), that server is used instead.
 * Also runs the broker behind `withTestServer()` (one shared Pitwall server per worker, started on
 * first use, stopped here at the end).
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.PITWALL_TEST_ADMIN_URL;
  let stop = async () => undefined as void;
  let dataDir: string | null = null;
  if (!adminUrl) {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-test-pg-"));
    await fs.chmod(dataDir, 0o711);
    const db = await startEmbeddedPostgres({
      dataDir,
      log: { info: () => undefined, warn: console.warn },
    });
    adminUrl = db.url.replace(/\/pitwall$/, "/postgres");
    stop = () => db.stop();
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  await migrateDeploy(projectDir, templateUrl.toString());
  project.provide("pgAdminUrl", adminUrl);
  const broker = await startTestServerBroker(adminUrl);
  project.provide("testServerBroker", broker.url);

  return async () => {
    await broker.close();
    await stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}
