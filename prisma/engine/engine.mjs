// Entry point of the schema engine shim: parses the arguments the Prisma CLI passes to its native
// `schema-engine` binary and runs either a `cli` subcommand or the JSON-RPC server.
//
//   schema-engine --version
//   schema-engine [--datasource <json>] cli <can-connect-to-database|create-database|drop-database>
//   schema-engine [--datasource <json>] [--datamodels <path>]... [--enabled-preview-features <list>]

import { readFile } from "node:fs/promises";
import { assertPostgresUrl } from "./connection.mjs";
import { canConnectToDatabase, createDatabase, dropDatabase } from "./database.mjs";
import { EngineError, EnginePanic, describeError, toRpcError } from "./errors.mjs";
import { writeErrorLog, writeLog, writeStartupLine } from "./log.mjs";
import { JsonRpcServer } from "./rpc.mjs";
import { SchemaEngineSession } from "./session.mjs";
import { loadSchemaEngineWasm, panicRegistry } from "./wasm.mjs";

const EXIT_OK = 0;
const EXIT_ERROR = 1;
const EXIT_PANIC = 101;

const USAGE = `Usage: schema-engine [--datasource <json>] [--datamodels <path>]... [cli <command>]

Prisma schema engine backed by @prisma/schema-engine-wasm (see prisma/engine/README.md).
Without a command it speaks JSON-RPC on stdin/stdout.

Commands (after \`cli\`): can-connect-to-database, create-database, drop-database`;

/** Options taking a value, by every spelling the native engine accepts. */
const VALUE_OPTIONS = {
  "--datasource": "datasource",
  "--datamodels": "datamodels",
  "-d": "datamodels",
  "--enabled-preview-features": "previewFeatures",
  "--extension-types": "extensionTypes",
};

/** Parses the engine's command line into `{ version, help, datasource, datamodelPaths, command }`. */
export function parseArgs(argv) {
  const options = { datamodelPaths: [], datasource: undefined, command: undefined, version: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--version" || arg === "-V") options.version = true;
    else if (arg === "--help" || arg === "-h") options.help = true;
    else if (arg === "cli") {
      options.command = argv[i + 1];
      if (!options.command) throw new EngineError("Missing command after `cli`.");
      i++;
    } else {
      const [flag, inlineValue] = arg.startsWith("--") && arg.includes("=") ? splitOnce(arg, "=") : [arg, undefined];
      const name = VALUE_OPTIONS[flag];
      if (!name) throw new EngineError(`Unknown argument \`${arg}\`.\n\n${USAGE}`);
      const value = inlineValue ?? argv[++i];
      if (value === undefined) throw new EngineError(`Missing value for \`${flag}\`.`);
      if (name === "datamodels") options.datamodelPaths.push(value);
      else if (name === "datasource") options.datasource = parseDatasource(value);
      // Preview features and extension types are read by the engine from the schema itself.
    }
  }
  return options;
}

/** Runs the engine with the given arguments and resolves to the process exit code. */
export async function main(argv) {
  let options;
  try {
    options = parseArgs(argv);
  } catch (error) {
    writeStartupLine();
    const { message, errorCode } = describeError(error);
    writeErrorLog(message, errorCode);
    return EXIT_ERROR;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (options.version) {
    const wasm = await loadSchemaEngineWasm();
    process.stdout.write(`schema-engine-cli ${wasm.version()}\n`);
    return EXIT_OK;
  }
  writeStartupLine();
  return options.command ? runCliCommand(options) : runJsonRpcServer(options);
}

/** `schema-engine cli <command>`: database-level commands, reported through the exit code and log lines. */
async function runCliCommand({ command, datasource }) {
  const commands = {
    "can-connect-to-database": async (url) => {
      await canConnectToDatabase(url);
      return "Connection successful";
    },
    "create-database": async (url) => `Database '${await createDatabase(url)}' was successfully created.`,
    "drop-database": async (url) => {
      await dropDatabase(url);
      return "The database was successfully dropped.";
    },
  };
  try {
    const run = commands[command];
    if (!run) throw new EngineError(`Unknown cli command \`${command}\`.\n\n${USAGE}`);
    const url = datasource?.url;
    assertPostgresUrl(url);
    writeLog("INFO", await run(url));
    return EXIT_OK;
  } catch (error) {
    const { message, errorCode } = describeError(error);
    writeErrorLog(message, errorCode);
    return EXIT_ERROR;
  }
}

/** The JSON-RPC server on stdin/stdout; returns when the CLI closes stdin. */
async function runJsonRpcServer({ datasource, datamodelPaths }) {
  let datamodels;
  try {
    datamodels = datamodelPaths.length > 0 ? await Promise.all(datamodelPaths.map(readDatamodel)) : undefined;
  } catch (error) {
    writeErrorLog(describeError(error).message);
    return EXIT_ERROR;
  }
  const server = new JsonRpcServer({
    input: process.stdin,
    output: process.stdout,
    toRpcError,
    onResponse: (error) => {
      // A panicked wasm instance cannot be used again; the native engine exits the same way.
      if (error instanceof EnginePanic) {
        writeErrorLog(error.message);
        process.exit(EXIT_PANIC);
      }
    },
  });
  process.on("uncaughtException", (error) => {
    // Wasm panics inside engine callbacks escape the request's promise chain and land here.
    const failure = error instanceof WebAssembly.RuntimeError ? new EnginePanic(panicRegistry().message || error.message) : error;
    server.failCurrentRequest(failure);
    writeErrorLog(describeError(failure).message);
    process.exit(failure instanceof EnginePanic ? EXIT_PANIC : EXIT_ERROR);
  });
  const session = new SchemaEngineSession({
    datasource,
    datamodels,
    print: (content) => server.request("print", { content }),
  });
  await server.serve((method, params) => session.handle(method, params));
  return EXIT_OK;
}

async function readDatamodel(path) {
  try {
    return [path, await readFile(path, "utf8")];
  } catch (error) {
    throw new EngineError(`Could not read the Prisma schema file at ${path}: ${error.message}`);
  }
}

function parseDatasource(json) {
  let datasource;
  try {
    datasource = JSON.parse(json);
  } catch {
    throw new EngineError("The `--datasource` argument is not valid JSON.");
  }
  if (datasource === null || typeof datasource !== "object") {
    throw new EngineError("The `--datasource` argument must be a JSON object.");
  }
  return datasource;
}

function splitOnce(text, separator) {
  const index = text.indexOf(separator);
  return [text.slice(0, index), text.slice(index + separator.length)];
}
