import { createHash } from "node:crypto";
import type pg from "pg";

/**
 * Statement texts named so far (text → name). The ingest path sends a fixed set of statements
 * (a few dozen texts), so this stays small; past the cap new texts are sent unnamed, which keeps
 * a bug that builds texts from data from growing every backend's prepared-statement cache.
 */
const names = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 500;

function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_STATEMENTS) {
    name = `pw_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Wraps a pooled connection so that `query(text, values)` runs as a **named prepared statement**
 * (`pw_<sha1 of the text>`): PostgreSQL parses and plans each ingest statement once per
 * connection instead of on every call (the soak bench found parse/plan a large share of
 * PostgreSQL's CPU per frame; see docs/benchmarks.md "Soak"). Only the two-argument string
 * form is rewritten; query configs, streams (COPY) and every other member pass through to the
 * connection unchanged. The name is derived from the text, so two texts never share a name.
 */
export function preparedStatements(client: pg.PoolClient): pg.PoolClient {
  const query = (text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text === "string" && Array.isArray(values) && rest.length === 0) {
      const name = statementName(text);
      if (name) return client.query({ name, text, values });
    }
    return (client.query as (...args: unknown[]) => unknown).call(client, text, values, ...rest);
  };
  return new Proxy(client, {
    get(target, prop) {
      if (prop === "query") return query;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function"
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
