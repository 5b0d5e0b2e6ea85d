// The database driver of the wasm schema engine: @prisma/adapter-pg, with the fixes the engine
// needs on top of what adapter-pg does for Prisma Client.
//
// 1. The engine's catalog queries return PostgreSQL's internal one-byte `"char"` type (OID 18,
//    e.g. pg_constraint.contype), which adapter-pg rejects as unsupported. We hand it to
//    adapter-pg as text and report the column as `Character`, the type the engine reads it as.
// 2. `executeScript` (migration scripts, `db execute`) is sent to the server as one simple-protocol
//    query, like the native engine does; adapter-pg splits scripts at every `;`, which breaks
//    function bodies and string literals containing semicolons.
// 3. Shadow databases: a configured `shadowDatabaseUrl` is reset before use; otherwise a temporary
//    database is created on the main server and dropped again once the engine disposes of it.

import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { ColumnTypeEnum } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { describeUrl, poolConfig, quoteIdent, toEngineError, withClient, withDatabase } from "./connection.mjs";
import { dropDatabaseWith } from "./database.mjs";
import { EngineError } from "./errors.mjs";

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/** Marks, on a result's `rows` array, which columns were `"char"` before we relabelled them. */
const CHAR_COLUMNS = Symbol("charColumns");

/** Relabels `"char"` columns of a `pg` result (or of each result of a multi-statement query) as text. */
function relabelCharColumns(result) {
  if (Array.isArray(result)) {
    result.forEach(relabelCharColumns);
    return result;
  }
  const indexes = [];
  result?.fields?.forEach((field, index) => {
    if (field.dataTypeID === PG_CHAR_OID) {
      field.dataTypeID = PG_TEXT_OID;
      indexes.push(index);
    }
  });
  if (indexes.length > 0 && Array.isArray(result.rows)) {
    Object.defineProperty(result.rows, CHAR_COLUMNS, { value: indexes });
  }
  return result;
}

/** `pg.Client` whose results never contain `"char"` columns (see `relabelCharColumns`). */
class CharAsTextClient extends pg.Client {
  /** Same contract as `pg.Client#query` (promise or callback form). */
  query(config, values, callback) {
    if (typeof config?.submit === "function") return super.query(config, values, callback);
    if (typeof values === "function") [values, callback] = [undefined, values];
    if (typeof callback === "function") {
      return super.query(config, values, (error, result) => callback(error, error ? result : relabelCharColumns(result)));
    }
    const pending = super.query(config, values);
    return typeof pending?.then === "function" ? pending.then(relabelCharColumns) : pending;
  }
}

/** Shared part of connections and transactions: queries with `"char"` columns typed as `Character`. */
class Queryable {
  constructor(inner) {
    this.inner = inner;
  }

  get provider() {
    return this.inner.provider;
  }

  get adapterName() {
    return this.inner.adapterName;
  }

  async queryRaw(query) {
    const resultSet = await this.inner.queryRaw(query);
    for (const index of resultSet.rows[CHAR_COLUMNS] ?? []) {
      resultSet.columnTypes[index] = ColumnTypeEnum.Character;
    }
    return resultSet;
  }

  executeRaw(query) {
    return this.inner.executeRaw(query);
  }
}

/** An adapter-pg transaction, with `"char"` columns typed as `Character`. */
class Transaction extends Queryable {
  get options() {
    return this.inner.options;
  }

  commit() {
    return this.inner.commit();
  }

  rollback() {
    return this.inner.rollback();
  }

  createSavepoint(name) {
    return this.inner.createSavepoint(name);
  }

  rollbackToSavepoint(name) {
    return this.inner.rollbackToSavepoint(name);
  }

  releaseSavepoint(name) {
    return this.inner.releaseSavepoint(name);
  }
}

/** An adapter-pg connection pool with the fixes listed at the top of this file. */
class Connection extends Queryable {
  constructor(inner, afterDispose) {
    super(inner);
    this.afterDispose = afterDispose;
  }

  async executeScript(script) {
    // Without parameters, `pg` uses the simple query protocol, which runs several statements.
    await this.inner.executeRaw({ sql: script, args: [], argTypes: [] });
  }

  async startTransaction(isolationLevel) {
    return new Transaction(await this.inner.startTransaction(isolationLevel));
  }

  getConnectionInfo() {
    return this.inner.getConnectionInfo();
  }

  async dispose() {
    await this.inner.dispose();
    await this.afterDispose?.();
  }
}

/**
 * Driver adapter factory (`SqlMigrationAwareDriverAdapterFactory`) for the wasm schema engine.
 * Pass it through `bindMigrationAwareSqlAdapterFactory` before giving it to the engine.
 */
export class PgMigrationAdapterFactory {
  provider = "postgres";
  adapterName = "@prisma/adapter-pg";

  /** Creates a factory for the main database `url` and an optional dedicated shadow database. */
  constructor({ url, shadowDatabaseUrl }) {
    this.url = url;
    this.shadowDatabaseUrl = shadowDatabaseUrl || undefined;
  }

  /** Opens a connection pool to the main database. */
  connect() {
    return this.#open(this.url);
  }

  /** Opens a connection pool to an empty shadow database (see the module comment). */
  connectToShadowDb() {
    return this.shadowDatabaseUrl ? this.#openConfiguredShadowDb() : this.#openTemporaryShadowDb();
  }

  async #open(url, afterDispose) {
    const { schema } = describeUrl(url);
    const factory = new PrismaPg(poolConfig(url, { Client: CharAsTextClient }), { schema });
    return new Connection(await factory.connect(), afterDispose);
  }

  async #openConfiguredShadowDb() {
    const main = describeUrl(this.url);
    const shadow = describeUrl(this.shadowDatabaseUrl);
    if (main.host === shadow.host && main.port === shadow.port && main.database === shadow.database) {
      throw new EngineError(
        "The shadow database you configured appears to be the same as the main database. Please specify another shadow database.",
      );
    }
    // The engine expects an empty database, as the native engine resets the configured one.
    await withClient(this.shadowDatabaseUrl, (client) =>
      client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(shadow.schema)} CASCADE; CREATE SCHEMA ${quoteIdent(shadow.schema)}`),
    ).catch((error) => {
      throw toEngineError(error, this.shadowDatabaseUrl);
    });
    return this.#open(this.shadowDatabaseUrl);
  }

  async #openTemporaryShadowDb() {
    const name = `prisma_migrate_shadow_db_${randomUUID()}`;
    await withClient(this.url, (client) => client.query(`CREATE DATABASE ${quoteIdent(name)}`)).catch((error) => {
      throw new EngineError(
        `Prisma Migrate could not create the shadow database. Please make sure the database user has permission to create databases, or set \`shadowDatabaseUrl\` in prisma.config.ts. Original error:\n${error.message}`,
        "P3014",
      );
    });
    const dropShadowDb = () => withClient(this.url, (client) => dropDatabaseWith(client, name, this.url));
    try {
      return await this.#open(withDatabase(this.url, name), dropShadowDb);
    } catch (error) {
      await dropShadowDb().catch(() => {});
      throw error;
    }
  }
}
