import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import {
  defaultSortDir,
  runGroupKeyBy,
  type BuiltinRunSort,
  type RunSort,
  type SortDir,
} from "@/lib/run-list";
import { ValidationError } from "@/lib/server/errors";
import { latestFinitePoints, metricKeysOfRuns, settleAllForRead } from "@/lib/server/metric-store";
import type { RunListPage } from "@/lib/view-models";

import { filterConditions, PEAK_JOIN, runsFrom, whereOf, type RunFilters } from "./run-filters";
import { listRunGroups } from "./run-groups";
import { decodeOffsetCursor, encodeOffsetCursor, keyedOrderSql } from "./run-keyed-sort";
import {
  deriveState,
  pointStats,
  runEndMismatches,
  runSelect,
  toSummary,
  type RunRow,
} from "./runs";

/** Where the previous page ended: the sort column's value (ISO time, text, seconds, tok/s or null) and the id. */
interface Cursor {
  sort: RunSort;
  dir: SortDir;
  v: string | number | null;
  id: number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString("base64url");
}

function decodeCursor(s: string, sort: RunSort, dir: SortDir): Cursor {
  let c: Cursor;
  try {
    c = JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as Cursor;
  } catch {
    throw new ValidationError("invalid cursor", "invalid_frame");
  }
  const valueOk =
    c.v === null
      ? sort === "peak"
      : sort === "duration" || sort === "peak"
        ? typeof c.v === "number"
        : typeof c.v === "string";
  if (
    typeof c.id !== "number" ||
    !valueOk ||
    (sort === "startedAt" && Number.isNaN(Date.parse(String(c.v))))
  ) {
    throw new ValidationError("invalid cursor", "invalid_frame");
  }
  if (c.sort !== sort || c.dir !== dir)
    throw new ValidationError(
      "the cursor belongs to another sort order; start from the first page",
      "invalid_frame",
    );
  return c;
}

/** The value each built-in sort orders by. startedAt and name are served by indexes (Run_startedAt_id_idx, Run_name_id_idx). */
function sortValue(sort: BuiltinRunSort, now: Date): Prisma.Sql {
  switch (sort) {
    case "startedAt":
      return Prisma.sql`r."startedAt"`;
    case "name":
      return Prisma.sql`r.name`;
    case "kind":
      return Prisma.sql`r.kind::text`;
    case "status":
      return Prisma.sql`r.status::text`;
    case "host":
      return Prisma.sql`h.name`;
    case "duration":
      return Prisma.sql`extract(epoch FROM coalesce(r."endedAt", ${now}::timestamptz) - r."startedAt")::float8`;
    case "peak":
      return Prisma.sql`p.peak`;
  }
}

function cursorValue(sort: RunSort, v: string | number): Prisma.Sql {
  return sort === "startedAt"
    ? Prisma.sql`${v}::timestamptz`
    : sort === "duration" || sort === "peak"
      ? Prisma.sql`${v}::float8`
      : Prisma.sql`${v}`;
}

/** Rows after the cursor in (value, id) order; only `peak` can be NULL, and NULLs come last either way. */
function afterCursor(c: Cursor, value: Prisma.Sql): Prisma.Sql {
  const op = Prisma.raw(c.dir === "asc" ? ">" : "<");
  if (c.v === null) return Prisma.sql`(${value} IS NULL AND r.id ${op} ${c.id})`;
  const keyset = Prisma.sql`(${value}, r.id) ${op} (${cursorValue(c.sort, c.v)}, ${c.id})`;
  return c.sort === "peak" ? Prisma.sql`(${keyset} OR ${value} IS NULL)` : keyset;
}

interface OrderedRow {
  id: number;
  v: Date | string | number | null;
  status: RunRow["status"];
  lastPushAt: Date;
  stallAfterS: number;
}

/**
 * Lists runs in the requested order (default newest first) with keyset pagination on
 * (sort value, id), ids breaking ties in the same direction; peak output puts runs without one
 * last in both directions. Keyed sorts (`config.<path>`, `metric.<key>`) page by offset
 * (run-keyed-sort.ts). Also returns the repeated-run groups present on the page, each run's
 * latest value of the `metrics` keys asked for, and the metric keys the page's runs have.
 * @throws ValidationError for a malformed cursor, or one from another sort order.
 */
export async function listRuns(
  db: PrismaClient,
  filters: RunFilters,
  now: Date = new Date(),
): Promise<RunListPage> {
  const sort = filters.sort;
  const dir = filters.dir ?? defaultSortDir(sort);
  const conditions = filterConditions(filters);
  const keyedOrder = keyedOrderSql(sort, dir);
  // A metric sort orders by the folded store: fold the pending points first, so it counts them.
  if (sort.startsWith("metric.")) await settleAllForRead(db);
  const value = keyedOrder ? Prisma.sql`NULL::text` : sortValue(sort as BuiltinRunSort, now);
  const dirSql = Prisma.raw(dir === "asc" ? "ASC" : "DESC");
  const order =
    keyedOrder ??
    (sort === "peak"
      ? Prisma.sql`${value} ${dirSql} NULLS LAST, r.id ${dirSql}`
      : Prisma.sql`${value} ${dirSql}, r.id ${dirSql}`);
  const refine = filters.status === "stale" || filters.status === "running";
  const batch = (filters.limit + 1) * (refine ? 4 : 1);

  let cursor: Cursor | undefined =
    filters.cursor && !keyedOrder ? decodeCursor(filters.cursor, sort, dir) : undefined;
  const page = filters.cursor ? null : (filters.page ?? 1);
  // Page n skips the rows of the pages before it: in SQL, or (stale/running, split in memory) after picking.
  const skip =
    page !== null
      ? (page - 1) * filters.limit
      : filters.cursor && keyedOrder
        ? decodeOffsetCursor(filters.cursor, sort, dir)
        : 0;
  const sqlOffset = refine ? 0 : skip;
  const memSkip = refine ? skip : 0;
  const picked: OrderedRow[] = [];
  // Over-fetch when the stale/running split must be applied in memory (keyed sorts move on by offset).
  let scanned = 0;
  for (let guard = 0; guard < 20; guard++) {
    const page = await db.$queryRaw<OrderedRow[]>`
      SELECT r.id, ${value} AS v, r.status::text AS status, r."lastPushAt", r."stallAfterS"
      FROM "Run" r JOIN "Host" h ON h.id = r."hostId" ${sort === "peak" ? PEAK_JOIN : Prisma.empty}
      ${whereOf(cursor ? [...conditions, afterCursor(cursor, value)] : conditions)}
      ORDER BY ${order} LIMIT ${refine ? batch + memSkip : batch} OFFSET ${sqlOffset + scanned}`;
    for (const r of page)
      if (!refine || deriveState(r.status, r.lastPushAt, r.stallAfterS, now) === filters.status)
        picked.push(r);
    const last = page[page.length - 1];
    if (
      !refine ||
      page.length < batch + memSkip ||
      picked.length > memSkip + filters.limit ||
      !last
    )
      break;
    if (keyedOrder) scanned += page.length;
    else cursor = { sort, dir, v: cursorOf(last.v), id: last.id };
  }
  picked.splice(0, memSkip);
  const hasMore = picked.length > filters.limit;
  if (hasMore) picked.length = filters.limit;

  const found = await db.run.findMany({
    where: { id: { in: picked.map((r) => r.id) } },
    select: runSelect,
  });
  const byId = new Map(found.map((r) => [r.id, r]));
  const rows = picked.map((r) => byId.get(r.id)).filter((r): r is RunRow => r !== undefined);
  const ids = rows.map((r) => r.id);
  const [stats, mismatches, archivedHidden, total, latest, metricKeys] = await Promise.all([
    pointStats(
      db,
      rows.map((r) => r.id),
    ),
    runEndMismatches(db, rows),
    filters.archived === "exclude"
      ? db.run.count({ where: { archivedAt: { not: null } } })
      : Promise.resolve(0),
    countRuns(db, filters, conditions, now),
    filters.metrics?.length ? latestFinitePoints(db, ids, filters.metrics) : [],
    metricKeysOfRuns(db, ids),
  ]);
  const latestByRun = new Map<number, Record<string, number>>();
  for (const p of latest) {
    const values = latestByRun.get(p.runId) ?? {};
    values[p.key] = p.value;
    latestByRun.set(p.runId, values);
  }
  const runs = rows.map((r) => {
    const s = toSummary(r, stats.get(r.id), mismatches.get(r.id), now);
    const metrics = filters.metrics ? { metrics: latestByRun.get(r.id) ?? {} } : {};
    return filters.group && filters.group !== "off"
      ? { ...s, ...metrics, groupKey: runGroupKeyBy(filters.group, s) }
      : { ...s, ...metrics };
  });
  const groups =
    filters.group === "off" || filters.sweep
      ? []
      : await listRunGroups(db, filters, [...new Set(runs.map((r) => r.groupKey))], now);
  const last = picked[picked.length - 1];
  return {
    runs,
    groups,
    nextCursor: !hasMore
      ? null
      : keyedOrder
        ? encodeOffsetCursor(sort, dir, skip + filters.limit)
        : last
          ? encodeCursor({ sort, dir, v: cursorOf(last.v), id: last.id })
          : null,
    archivedHidden,
    metricKeys,
    total,
    page,
  };
}

/** Runs matching the filters; stale and running are told apart in SQL here, the twin of `deriveState`. */
async function countRuns(
  db: PrismaClient,
  filters: RunFilters,
  conditions: Prisma.Sql[],
  now: Date,
): Promise<number> {
  const stale = Prisma.sql`(${now}::timestamptz - r."lastPushAt") > r."stallAfterS" * interval '1 second'`;
  const split =
    filters.status === "stale"
      ? [stale]
      : filters.status === "running"
        ? [Prisma.sql`NOT ${stale}`]
        : [];
  const [row] = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM ${runsFrom(filters)} ${whereOf([...conditions, ...split])}`;
  return row?.n ?? 0;
}

function cursorOf(v: OrderedRow["v"]): string | number | null {
  return v instanceof Date ? v.toISOString() : v;
}
