// User-facing errors and their conversion to what the Prisma CLI expects from a schema engine.

/** JSON-RPC error code the native engine uses for all user-facing and internal engine errors. */
const ENGINE_ERROR_CODE = 4466;
const METHOD_NOT_FOUND = -32601;
const ENGINE_ERROR_MESSAGE = "An error happened. Check the data field for details.";

/** An error shown to the user as is, optionally with a Prisma error code such as `P1003`. */
export class EngineError extends Error {
  /** Creates an error with a message for the user and an optional Prisma error code. */
  constructor(message, errorCode) {
    super(message);
    this.name = "EngineError";
    this.errorCode = errorCode;
  }
}

/** A JSON-RPC method this engine does not implement. */
export class MethodNotFoundError extends Error {
  /** Creates the error for `method`. */
  constructor(method) {
    super(`Method not found: ${method}`);
    this.name = "MethodNotFoundError";
  }
}

/** Thrown when the wasm engine panicked; the instance cannot be used afterwards. */
export class EnginePanic extends Error {
  /** Creates a panic error from the message the wasm panic hook registered. */
  constructor(message) {
    super(message);
    this.name = "EnginePanic";
  }
}

/**
 * Cleans up a wasm engine error message: drops the "external connector error" wrapper line and the
 * span trace appended to it ("   0: sql_schema_connector::...\n      with migration_name=...\n
 * at ..."), keeping the name of the migration that failed, as the native engine reports it.
 */
function cleanMessage(message) {
  const lines = String(message).split("\n");
  const traceStart = lines.findIndex((line) => /^\s+\d+: [\w:]+::/.test(line));
  const trace = traceStart === -1 ? [] : lines.slice(traceStart);
  const text = (traceStart === -1 ? lines : lines.slice(0, traceStart)).filter(
    (line, index) => !(index === 0 && line === "external connector error"),
  );
  const migrationName = trace.join("\n").match(/migration_name="([^"]+)"/)?.[1];
  if (migrationName) text.push("", `Migration name: ${migrationName}`);
  return text.join("\n").trimEnd();
}

/** Prisma error code carried by an error, if it has one (e.g. `P1012` for schema errors). */
function errorCodeOf(error) {
  const code = error?.errorCode ?? error?.code;
  return typeof code === "string" && /^P\d{4}$/.test(code) ? code : undefined;
}

/** Converts any thrown value into the `error` member of a JSON-RPC response. */
export function toRpcError(error) {
  if (error instanceof MethodNotFoundError) return { code: METHOD_NOT_FOUND, message: error.message };
  const isPanic = error instanceof EnginePanic;
  const message = cleanMessage(error instanceof Error ? error.message : String(error));
  const data = { is_panic: isPanic, message, meta: null };
  const errorCode = errorCodeOf(error);
  if (errorCode) data.error_code = errorCode;
  if (isPanic) data.error = { message };
  return { code: ENGINE_ERROR_CODE, message: isPanic ? message : ENGINE_ERROR_MESSAGE, data };
}

/** Message and Prisma error code of any thrown value, for a log line. */
export function describeError(error) {
  const message = cleanMessage(error instanceof Error ? error.message : String(error));
  return { message, errorCode: errorCodeOf(error) };
}
