// Loads Prisma's WebAssembly build of the schema engine (@prisma/schema-engine-wasm).
//
// The package entry point imports the `.wasm` file as an ES module, which Node 20 cannot do, so we
// load its wasm-bindgen glue (`schema_engine_bg.js`) and instantiate the binary ourselves.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);

/**
 * Receives the message of a Rust panic inside the wasm module. The engine calls
 * `globalThis.PRISMA_WASM_PANIC_REGISTRY.set_message()` from its panic hook; without it the only
 * trace of a panic would be a `RuntimeError: unreachable`.
 */
class PanicRegistry {
  message = "";

  /** Called by the wasm panic hook with the panic message. */
  set_message(message) {
    this.message = message;
  }
}

let modulePromise;

/** Returns the registry holding the last wasm panic message. */
export function panicRegistry() {
  globalThis.PRISMA_WASM_PANIC_REGISTRY ??= new PanicRegistry();
  return globalThis.PRISMA_WASM_PANIC_REGISTRY;
}

/** Loads and instantiates the wasm schema engine once; resolves to its JS bindings. */
export function loadSchemaEngineWasm() {
  modulePromise ??= instantiate();
  return modulePromise;
}

async function instantiate() {
  panicRegistry();
  const gluePath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const glue = await import(pathToFileURL(gluePath).href);
  const bytes = await readFile(path.join(path.dirname(gluePath), "schema_engine_bg.wasm"));
  const module = await WebAssembly.compile(bytes);
  // The binary imports its glue functions from one module ("./schema_engine_bg.js").
  const imports = Object.fromEntries(WebAssembly.Module.imports(module).map(({ module: name }) => [name, glue]));
  const instance = await WebAssembly.instantiate(module, imports);
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return glue;
}
