import type pg from "pg";

/**
 * Which raw `pg` pool reaches the same database as a Prisma client. Code handed only a Prisma
 * client (the store's readers) finds here the pool for work Prisma cannot do (the metric fold's
 * COPY and multi-statement transactions). Kept on `globalThis` like the handles of db.ts, so
 * server.ts (tsx) and Next's bundled route handlers see the same bindings.
 */
const KEY = Symbol.for("pitwall.rawPoolOf");

function bindings(): WeakMap<object, pg.Pool> {
  const g = globalThis as typeof globalThis & { [KEY]?: WeakMap<object, pg.Pool> };
  return (g[KEY] ??= new WeakMap());
}

/** Records that `pool` reaches the database of `client` (a PrismaClient). */
export function bindRawPool(client: object, pool: pg.Pool): void {
  bindings().set(client, pool);
}

/** The pool bound to `client` by {@link bindRawPool}, if any. */
export function rawPoolOf(client: object): pg.Pool | undefined {
  return bindings().get(client);
}
