// Database-level commands the CLI runs as `schema-engine cli <command>` (and the `createDatabase`
// RPC method). They need no wasm engine, only a plain `pg` connection.

import { describeUrl, quoteIdent, toEngineError, withClient, withDatabase } from "./connection.mjs";

const MAINTENANCE_DATABASES = ["postgres", "template1"];

/** Checks that the database in `url` accepts connections (P1003 when it does not exist). */
export async function canConnectToDatabase(url) {
  await withClient(url, (client) => client.query("SELECT 1"));
}

/** Creates the database named in `url` and returns its name. */
export async function createDatabase(url) {
  const { database } = describeUrl(url);
  await withMaintenanceClient(url, async (client) => {
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(database)}`);
    } catch (error) {
      throw toEngineError(error, url);
    }
  });
  return database;
}

/** Drops the database named in `url`, closing other sessions connected to it. */
export async function dropDatabase(url) {
  const { database } = describeUrl(url);
  await withMaintenanceClient(url, (client) => dropDatabaseWith(client, database, url));
}

/**
 * Drops `database` through an open connection to another database of the same server. Sessions
 * still connected to it are terminated (`WITH (FORCE)`, PostgreSQL 13+) only if a plain drop fails.
 */
export async function dropDatabaseWith(client, database, url) {
  try {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)}`);
  } catch (error) {
    if (error?.code !== "55006") throw toEngineError(error, url);
    try {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`);
    } catch (forceError) {
      throw toEngineError(forceError, url);
    }
  }
}

/** Runs `work` on a connection to a maintenance database (`postgres`, else `template1`) of the server in `url`. */
async function withMaintenanceClient(url, work) {
  let lastError;
  for (const name of MAINTENANCE_DATABASES) {
    try {
      return await withClient(withDatabase(url, name), work);
    } catch (error) {
      if (error?.errorCode !== "P1003") throw error;
      lastError = error;
    }
  }
  throw lastError;
}
