// PostgreSQL connection strings, plain `pg` connections and Prisma-style connection errors.

import pg from "pg";
import { EngineError } from "./errors.mjs";

const DEFAULT_CONNECT_TIMEOUT_S = 5;

/** Throws a user-facing error unless `url` is a PostgreSQL connection string. */
export function assertPostgresUrl(url) {
  if (typeof url !== "string" || url.length === 0) {
    throw new EngineError("The datasource URL is empty. See https://pris.ly/d/config-url");
  }
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    const scheme = url.split(":", 1)[0];
    throw new EngineError(
      `The schema engine shim in prisma/engine supports PostgreSQL only; got a \`${scheme}:\` URL.`,
    );
  }
}

/** Host, port, database, user and schema named by a PostgreSQL connection string. */
export function describeUrl(url) {
  const parsed = new URL(url);
  const params = parsed.searchParams;
  return {
    host: params.get("host") ?? (decodeURIComponent(parsed.hostname) || "localhost"),
    port: params.get("port") ?? (parsed.port || "5432"),
    database: decodeURIComponent(parsed.pathname.slice(1)) || "postgres",
    user: decodeURIComponent(parsed.username) || params.get("user") || "",
    schema: params.get("schema") ?? "public",
  };
}

/**
 * The same connection string pointing at another database. `pg` ignores a separate `database`
 * field when a connection string is given, so the string itself has to change.
 */
export function withDatabase(url, database) {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** Quotes an SQL identifier for PostgreSQL. */
export function quoteIdent(name) {
  return `"${String(name).replaceAll('"', '""')}"`;
}

/**
 * `pg.Pool` / `pg.Client` options for a Prisma connection string. Like the native engine, a
 * `?schema=` parameter also becomes the session's search_path, so unqualified names in migration
 * scripts land in that schema.
 */
export function poolConfig(url, overrides = {}) {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema");
  if (schema && schema !== "public") {
    const searchPath = `-c search_path=${quoteIdent(schema).replace(/[\\ ]/g, "\\$&")}`;
    const options = parsed.searchParams.get("options");
    parsed.searchParams.set("options", options ? `${options} ${searchPath}` : searchPath);
  }
  const timeoutS = Number(parsed.searchParams.get("connect_timeout") ?? DEFAULT_CONNECT_TIMEOUT_S);
  return {
    connectionString: parsed.toString(),
    connectionTimeoutMillis: timeoutS > 0 ? timeoutS * 1000 : 0,
    ...overrides,
  };
}

/**
 * Opens a single `pg` connection, runs `work` with it and closes it again. Connection failures
 * become user-facing errors; errors thrown by `work` are passed on unchanged.
 */
export async function withClient(url, work) {
  const client = new pg.Client(poolConfig(url));
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw toEngineError(error, url);
  }
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ETIMEDOUT"]);

/** Maps a `pg` error to the user-facing error (and Prisma code) the native engine would report. */
export function toEngineError(error, url) {
  if (error instanceof EngineError) return error;
  const { host, port, database, user } = describeUrl(url);
  const at = `${host}:${port}`;
  const code = error?.code;
  const isServerError = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
  if (!isServerError && (UNREACHABLE_CODES.has(code) || /timeout/i.test(error?.message ?? ""))) {
    return new EngineError(
      `Can't reach database server at \`${at}\`\n\nPlease make sure your database server is running at \`${at}\`.`,
      "P1001",
    );
  }
  switch (code) {
    case "28P01":
    case "28000":
      return new EngineError(
        `Authentication failed against database server, the provided database credentials for \`${user}\` are not valid.\n\nPlease make sure to provide valid database credentials for the database server at \`${at}\`.`,
        "P1000",
      );
    case "3D000":
      return new EngineError(`Database \`${database}\` does not exist on the database server at \`${at}\`.`, "P1003");
    case "42P04":
      return new EngineError(`Database \`${database}\` already exists on the database server at \`${at}\``, "P1009");
    case "42501":
      return new EngineError(`User \`${user}\` was denied access on the database \`${database}\``, "P1010");
    default:
      return new EngineError(error?.message ?? String(error));
  }
}
