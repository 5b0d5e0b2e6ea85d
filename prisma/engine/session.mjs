// Maps the schema engine's JSON-RPC methods onto the wasm engine.

import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { PgMigrationAdapterFactory } from "./adapter.mjs";
import { assertPostgresUrl } from "./connection.mjs";
import { createDatabase } from "./database.mjs";
import { EngineError, EnginePanic, MethodNotFoundError } from "./errors.mjs";
import { createEngineLogForwarder } from "./log.mjs";
import { loadSchemaEngineWasm, panicRegistry } from "./wasm.mjs";

/** Methods whose params and result are the same for the wasm engine as over JSON-RPC. */
const PASSTHROUGH_METHODS = new Set([
  "diagnoseMigrationHistory",
  "ensureConnectionValidity",
  "introspect",
  "introspectSql",
  "markMigrationApplied",
  "markMigrationRolledBack",
  "reset",
  "schemaPush",
]);

/** One engine process worth of state: wasm engine instances per database URL, created lazily. */
export class SchemaEngineSession {
  #datasource;
  #datamodels;
  #print;
  #engines = new Map();
  #diagnosedMigrations = new Set();
  #log = createEngineLogForwarder();

  /**
   * Creates a session for the CLI's `--datasource` (`{ url, shadowDatabaseUrl }`) and
   * `--datamodels` files (`[path, content][]`); `print` shows text on the user's terminal.
   */
  constructor({ datasource, datamodels, print }) {
    this.#datasource = datasource ?? {};
    this.#datamodels = datamodels;
    this.#print = print;
  }

  /** Runs one JSON-RPC method and returns its result (never `undefined`). */
  async handle(method, params) {
    params ??= {};
    if (PASSTHROUGH_METHODS.has(method)) return this.#call(method, params);
    switch (method) {
      case "applyMigrations": {
        const result = await this.#call(method, params);
        // devDiagnostic skips the shadow database while migrations are pending; redo it later.
        if (result.appliedMigrationNames?.length > 0) this.#diagnosedMigrations.clear();
        return result;
      }
      case "getDatabaseVersion":
        return this.#call("version", undefined);
      case "devDiagnostic": {
        const result = await this.#call(method, params);
        this.#diagnosedMigrations.add(migrationsKey(params));
        return result;
      }
      case "createMigration":
      case "evaluateDataLoss":
        await this.#ensureMigrationSchemaCached(params);
        return this.#call(method, params);
      case "diff":
        return this.#diff(params);
      case "dbExecute":
        return this.#call(method, params, this.#urlOf(params.datasourceType));
      case "createDatabase":
        return { databaseName: await createDatabase(this.#urlOf(params.datasource)) };
      case "debugPanic":
        return this.#call(method, undefined);
      default:
        throw new MethodNotFoundError(method);
    }
  }

  async #call(method, params, url = this.#datasource.url) {
    const { engine, errorRegistry } = await this.#engineFor(url);
    try {
      const result = await engine[method](params);
      return result ?? {};
    } catch (error) {
      throw withExternalErrors(asPanicIfAny(error), errorRegistry);
    }
  }

  /**
   * `diff` returns the script or summary in `stdout`; the native engine prints it through the
   * CLI instead (a `print` request), which is the only place the CLI looks for it.
   */
  async #diff(params) {
    const result = await this.#call("diff", params);
    // The CLI appends a newline itself.
    if (result.stdout) await this.#print(result.stdout.replace(/\n+$/, ""));
    return { exitCode: result.exitCode, stdout: null };
  }

  /**
   * `createMigration` and `evaluateDataLoss` read the schema the migrations produce from a cache
   * that only `devDiagnostic` fills (they cannot open a shadow database themselves). `migrate dev`
   * calls `devDiagnostic` first, but while migrations are pending it does not fill the cache, and
   * the CLI applies them before asking for the new migration; so we run it (again) when needed.
   */
  async #ensureMigrationSchemaCached(params) {
    const key = migrationsKey(params);
    if (this.#diagnosedMigrations.has(key)) return;
    await this.#call("devDiagnostic", { migrationsList: params.migrationsList, filters: params.filters });
    this.#diagnosedMigrations.add(key);
  }

  /** The URL a datasource parameter of a request points to (default: the CLI's datasource). */
  #urlOf(datasourceParam) {
    const url = datasourceParam?.url;
    return typeof url === "string" && url.length > 0 ? url : this.#datasource.url;
  }

  #engineFor(url) {
    if (!this.#engines.has(url)) {
      const starting = this.#startEngine(url);
      // A failed start is reported to the request that triggered it and retried by the next one.
      starting.catch(() => this.#engines.delete(url));
      this.#engines.set(url, starting);
    }
    return this.#engines.get(url);
  }

  async #startEngine(url) {
    assertPostgresUrl(url);
    const wasm = await loadSchemaEngineWasm();
    const shadowDatabaseUrl = url === this.#datasource.url ? this.#datasource.shadowDatabaseUrl : undefined;
    const adapterFactory = bindMigrationAwareSqlAdapterFactory(new PgMigrationAdapterFactory({ url, shadowDatabaseUrl }));
    const { errorRegistry } = adapterFactory;
    try {
      const engine = await wasm.SchemaEngine.new({ datamodels: this.#datamodels }, this.#log, adapterFactory);
      return { engine, errorRegistry };
    } catch (error) {
      throw withExternalErrors(asPanicIfAny(error), errorRegistry);
    }
  }
}

/** Identifies a migrations directory state (and filters) for the migration schema cache. */
function migrationsKey({ migrationsList, filters }) {
  return JSON.stringify([migrationsList, filters ?? null]);
}

/**
 * Errors thrown by our adapter code (e.g. while creating a shadow database) reach the engine as
 * "External error id#N", the original being kept in driver-adapter-utils' error registry.
 * Puts the original message, and Prisma error code, back into the engine's error.
 */
function withExternalErrors(error, errorRegistry) {
  if (!(error instanceof Error) || error instanceof EnginePanic) return error;
  let original;
  const message = error.message.replace(/External error id#(\d+)/g, (text, id) => {
    const registered = errorRegistry.consumeError(Number(id));
    if (!registered) return text;
    original ??= registered.error;
    return registered.error instanceof Error ? registered.error.message : String(registered.error);
  });
  if (original === undefined) return error;
  return new EngineError(message, original?.errorCode ?? original?.code ?? error.code);
}

/** Replaces the opaque `RuntimeError: unreachable` of a wasm panic by the panic message. */
function asPanicIfAny(error) {
  if (error instanceof WebAssembly.RuntimeError) {
    const registry = panicRegistry();
    return new EnginePanic(registry.message || error.message);
  }
  return error;
}
