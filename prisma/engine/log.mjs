// Log lines on stderr, in the JSON format of the native schema engine's `tracing` output.
//
// The Prisma CLI reads the engine's stderr line by line: in JSON-RPC mode it collects
// `fields.message` of every JSON line and remembers the last `ERROR` line; in `cli` mode it skips
// the first line (the native engine's start-up line) and parses every following line as JSON,
// looking for an `ERROR` line from target `schema_engine::logger` with `fields.error_code`.
// So everything this module writes is one JSON object per line.

const LEVELS = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR"];
const LOGGER_TARGET = "schema_engine::logger";

/**
 * Lowest level forwarded to stderr. Read from RUST_LOG like the native engine does, but only its
 * global directive (e.g. `info`, `debug`, `off`); per-target directives are ignored.
 */
function thresholdFromEnv(rustLog = process.env.RUST_LOG) {
  const global = (rustLog ?? "")
    .split(",")
    .map((directive) => directive.trim().toUpperCase())
    .filter((directive) => directive && !directive.includes("="))
    .at(-1);
  if (global === "OFF") return LEVELS.length;
  const index = LEVELS.indexOf(global);
  return index === -1 ? LEVELS.indexOf("INFO") : index;
}

const threshold = thresholdFromEnv();

/** Writes one JSON log line to stderr (the level filter does not apply to errors). */
export function writeLog(level, message, fields = {}, target = LOGGER_TARGET) {
  if (level !== "ERROR" && LEVELS.indexOf(level) < threshold) return;
  process.stderr.write(`${JSON.stringify({ level, fields: { message, ...fields }, target })}\n`);
}

/** Writes the start-up line the CLI expects first on stderr (and skips in `cli` mode). */
export function writeStartupLine() {
  const fields = { message: "Starting schema engine (prisma/engine shim on @prisma/schema-engine-wasm)" };
  process.stderr.write(`${JSON.stringify({ level: "INFO", fields, target: "schema_engine" })}\n`);
}

/** Writes a user-facing error the way the CLI looks for it (level ERROR with `error_code`). */
export function writeErrorLog(message, errorCode) {
  writeLog("ERROR", message, errorCode ? { error_code: errorCode } : {});
}

/** Returns a callback for the wasm engine's `tracing` output that forwards it to stderr. */
export function createEngineLogForwarder() {
  let pending = "";
  return (chunk) => {
    pending += String(chunk);
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.trim()) continue;
      let level = "INFO";
      try {
        level = JSON.parse(line).level ?? level;
      } catch {
        // Not JSON: still forward it, wrapped so the CLI can parse it.
        writeLog("INFO", line, {}, "schema_engine_wasm");
        continue;
      }
      if (LEVELS.indexOf(level) >= threshold) process.stderr.write(`${line}\n`);
    }
  };
}
