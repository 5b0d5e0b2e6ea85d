// JSON-RPC 2.0 over stdio, one message per line, as the Prisma CLI speaks it with the engine.
//
// Requests from the CLI are handled one at a time, in order (the wasm engine is not re-entrant).
// The engine can also send requests to the CLI (`print`), whose responses arrive on the same input
// while a CLI request is still being handled.

import readline from "node:readline";

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** The other side closed its end before answering one of our requests. */
class ConnectionClosedError extends Error {
  constructor() {
    super("The CLI closed the connection to the schema engine.");
  }
}

/** A JSON-RPC peer on a pair of streams: serves incoming requests and sends its own. */
export class JsonRpcServer {
  #output;
  #input;
  #toRpcError;
  #queue = Promise.resolve();
  #nextId = 1;
  #pending = new Map();
  #current;
  #closed = false;

  /**
   * Creates a peer reading `input` and writing `output`; `toRpcError(error)` turns a thrown value
   * into a JSON-RPC `error` object, `onResponse(error)` runs after each response is written.
   */
  constructor({ input, output, toRpcError, onResponse }) {
    this.#input = input;
    this.#output = output;
    this.#toRpcError = toRpcError;
    this.onResponse = onResponse;
  }

  /** Serves requests with `handle(method, params)`; resolves when the input ends and all requests are done. */
  serve(handle) {
    return new Promise((resolve) => {
      const lines = readline.createInterface({ input: this.#input, crlfDelay: Infinity });
      lines.on("line", (line) => this.#receive(line, handle));
      lines.on("close", () => {
        // No answer can arrive any more: fail our own requests so the handlers waiting on them end.
        this.#closed = true;
        for (const { reject } of this.#pending.values()) reject(new ConnectionClosedError());
        this.#pending.clear();
        this.#queue.then(resolve);
      });
    });
  }

  /** Sends a request to the other side and resolves with its result. */
  request(method, params) {
    if (this.#closed) return Promise.reject(new ConnectionClosedError());
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send({ jsonrpc: "2.0", id, method, params });
    });
  }

  #receive(line, handle) {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.#send({ jsonrpc: "2.0", id: null, error: { code: PARSE_ERROR, message: "Parse error" } });
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.#send({ jsonrpc: "2.0", id: null, error: { code: INVALID_REQUEST, message: "Invalid request" } });
    } else if (typeof message.method === "string") {
      // Notifications (no id) need no answer; the CLI sends none we act on.
      if (message.id === undefined) return;
      this.#queue = this.#queue.then(() => this.#answer(message, handle));
    } else if ("result" in message || "error" in message) {
      // A response to one of our requests; one we no longer wait for is dropped.
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error) pending?.reject(Object.assign(new Error(message.error.message), { rpcError: message.error }));
      else pending?.resolve(message.result);
    } else {
      this.#send({ jsonrpc: "2.0", id: message.id ?? null, error: { code: INVALID_REQUEST, message: "Invalid request" } });
    }
  }

  /**
   * Answers the request being handled, if any, with `error`. For failures outside the request's
   * own promise chain (an uncaught exception), so the CLI gets a reply before the process exits.
   */
  failCurrentRequest(error) {
    if (this.#current === undefined) return;
    this.#send({ jsonrpc: "2.0", id: this.#current, error: this.#toRpcError(error) });
    this.#current = undefined;
  }

  async #answer({ id, method, params }, handle) {
    this.#current = id;
    let response;
    let error;
    try {
      response = { jsonrpc: "2.0", id, result: await handle(method, params) };
    } catch (thrown) {
      error = thrown;
      response = { jsonrpc: "2.0", id, error: this.#toRpcError(thrown) };
    }
    if (this.#current !== id) return; // already answered by failCurrentRequest()
    this.#current = undefined;
    this.#send(response);
    this.onResponse?.(error);
  }

  #send(message) {
    this.#output.write(`${JSON.stringify(message)}\n`);
  }
}
