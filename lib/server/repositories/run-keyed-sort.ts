import { Prisma } from "@/generated/prisma/client";
import { keyedSortOf, type RunSort, type SortDir } from "@/lib/run-list";
import { ValidationError } from "@/lib/server/errors";
import { latestFiniteValueSql } from "@/lib/server/metric-store";

// Keyed sorts of the run list (`sort=config.<path>` / `sort=metric.<key>`, lib/run-list.ts):
// their ORDER BY over `"Run" r`, and their cursor, which is an offset (a keyed value has no
// index and may be text or a number, so keyset paging buys nothing here).

/** A config path as the text[] that `#>` and `#>>` take. */
export function configPathSql(path: string): Prisma.Sql {
  return Prisma.sql`${path.split(".")}::text[]`;
}

/**
 * ORDER BY of a keyed sort, ids breaking ties in the same direction. `config.<path>`: numbers by
 * value, then strings and booleans as text, runs without one (or with an object, array or null
 * there) last either way. `metric.<key>`: the latest finite value ({@link latestFiniteValueSql}),
 * runs without one last. Null for a built-in sort.
 */
export function keyedOrderSql(sort: RunSort, dir: SortDir): Prisma.Sql | null {
  const keyed = keyedSortOf(sort);
  if (!keyed) return null;
  const d = Prisma.raw(dir === "asc" ? "ASC" : "DESC");
  if (keyed.source === "metric")
    return Prisma.sql`${latestFiniteValueSql(Prisma.sql`r.id`, keyed.key)} ${d} NULLS LAST, r.id ${d}`;
  const path = configPathSql(keyed.path);
  const type = Prisma.sql`jsonb_typeof(r.config #> ${path})`;
  return Prisma.sql`(CASE WHEN ${type} = 'number' THEN (r.config #>> ${path})::float8 END) ${d} NULLS LAST,
    (CASE WHEN ${type} IN ('string', 'boolean') THEN r.config #>> ${path} END) ${d} NULLS LAST, r.id ${d}`;
}

interface OffsetCursor {
  sort: RunSort;
  dir: SortDir;
  /** Rows of the listing before the next page. */
  o: number;
}

/** The cursor of a keyed sort's next page: the rows to skip, with the order it belongs to. */
export function encodeOffsetCursor(sort: RunSort, dir: SortDir, offset: number): string {
  return Buffer.from(JSON.stringify({ sort, dir, o: offset } satisfies OffsetCursor)).toString(
    "base64url",
  );
}

/**
 * The rows to skip that a keyed sort's cursor carries.
 * @throws ValidationError (`invalid_frame`) for a malformed cursor or one of another sort order.
 */
export function decodeOffsetCursor(text: string, sort: RunSort, dir: SortDir): number {
  let c: Partial<OffsetCursor>;
  try {
    c = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Partial<OffsetCursor>;
  } catch {
    throw new ValidationError("invalid cursor", "invalid_frame");
  }
  if (typeof c.o !== "number" || !Number.isInteger(c.o) || c.o < 0 || c.o > 100_000_000)
    throw new ValidationError("invalid cursor", "invalid_frame");
  if (c.sort !== sort || c.dir !== dir)
    throw new ValidationError(
      "the cursor belongs to another sort order; start from the first page",
      "invalid_frame",
    );
  return c.o;
}
