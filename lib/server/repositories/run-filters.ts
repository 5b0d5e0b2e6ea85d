import { Prisma } from "@/generated/prisma/client";
import type { RunListFilters } from "@/lib/api/runs";
import { keyedSortOf, parseRunGroupKey } from "@/lib/run-list";

import { configPathSql } from "./run-keyed-sort";
import { PEAK_OUTPUT_TOK_PER_S } from "./runs";

// The run list's filters as SQL over `"Run" r JOIN "Host" h` (lib/server/repositories/run-list.ts
// pages through them, run-groups.ts summarises groups with the same conditions).

/** Parsed query of `GET /api/runs` (lib/api/runs.ts `runListQuery`): what the run list filters on. */
export type RunFilters = RunListFilters;

/** `config.sweep` as text when it is a string or a number, else NULL (the SQL twin of lib/run-list.ts `sweepIdOf`). */
const SWEEP_ID = Prisma.sql`(CASE WHEN jsonb_typeof(r.config->'sweep') IN ('string', 'number') THEN nullif(r.config->>'sweep', '') END)`;
/** The SQL twin of lib/run-list.ts `runGroupKey`. */
export const GROUP_KEY = Prisma.sql`coalesce('sweep:' || ${SWEEP_ID}, 'name:' || r.kind::text || ':' || r.name)`;

/** `config.model` as text when it is a non-empty string, else NULL. */
const MODEL = Prisma.sql`(CASE WHEN jsonb_typeof(r.config->'model') = 'string' THEN nullif(r.config->>'model', '') END)`;

/** `config #>> path` as text when that value is a string (non-empty), number or boolean, else NULL (the SQL twin of lib/run-list.ts `configGroupValue`). */
function configValueSql(path: string): Prisma.Sql {
  const p = configPathSql(path);
  return Prisma.sql`(CASE WHEN jsonb_typeof(r.config #> ${p}) IN ('string', 'number', 'boolean') THEN nullif(r.config #>> ${p}, '') END)`;
}

/** The SQL twin of lib/run-list.ts `runGroupKeyBy` (runs without a model, or that config value, under `model` / `config.<path>` share the `unset:<by>` group). */
export function groupKeySql(by: RunFilters["group"]): Prisma.Sql {
  if (by === "host") return Prisma.sql`('host:' || h.name)`;
  if (by === "model") return Prisma.sql`coalesce('model:' || ${MODEL}, 'unset:model')`;
  const keyed = by ? keyedSortOf(by) : null;
  if (keyed?.source === "config")
    return Prisma.sql`coalesce(${`config:${keyed.path}=`} || ${configValueSql(keyed.path)}, ${`unset:${by}`})`;
  return GROUP_KEY;
}
/** Peak output tok/s of run `r`, for `LEFT JOIN LATERAL (…) p ON true`. */
export const PEAK_JOIN = Prisma.sql`LEFT JOIN LATERAL (SELECT ${PEAK_OUTPUT_TOK_PER_S} AS peak FROM "BenchmarkPoint" bp WHERE bp."runId" = r.id) p ON true`;

function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** The WHERE conditions of the filters (not the cursor); stale/running are both `status = running` here and split in memory. */
export function filterConditions(f: RunFilters): Prisma.Sql[] {
  const c: Prisma.Sql[] = [];
  if (f.archived === "exclude") c.push(Prisma.sql`r."archivedAt" IS NULL`);
  if (f.archived === "only") c.push(Prisma.sql`r."archivedAt" IS NOT NULL`);
  if (f.kind) c.push(Prisma.sql`r.kind = ${f.kind}::"RunKind"`);
  if (f.host)
    c.push(
      f.hostMatch === "exact"
        ? Prisma.sql`h.name = ${f.host}`
        : Prisma.sql`h.name ILIKE ${likeContains(f.host)}`,
    );
  if (f.tag) c.push(Prisma.sql`${f.tag} = ANY(r.tags)`);
  if (f.q)
    c.push(
      Prisma.sql`(r.name ILIKE ${likeContains(f.q)} OR r.key ILIKE ${likeContains(f.q)} OR ${f.q} = ANY(r.tags))`,
    );
  if (f.status === "stale" || f.status === "running") c.push(Prisma.sql`r.status = 'running'`);
  else if (f.status) c.push(Prisma.sql`r.status = ${f.status}::"RunStatus"`);
  const group = f.sweep ? parseRunGroupKey(f.sweep) : null;
  if (group && "sweep" in group) c.push(Prisma.sql`${SWEEP_ID} = ${group.sweep}`);
  if (group && "host" in group) c.push(Prisma.sql`h.name = ${group.host}`);
  if (group && "model" in group) c.push(Prisma.sql`${MODEL} = ${group.model}`);
  if (group && "unset" in group)
    c.push(
      group.unset === "model"
        ? Prisma.sql`${MODEL} IS NULL`
        : Prisma.sql`${configValueSql(group.configPath)} IS NULL`,
    );
  else if (group && "configPath" in group)
    c.push(Prisma.sql`${configValueSql(group.configPath)} = ${group.value}`);
  if (group && "name" in group)
    c.push(
      Prisma.sql`${SWEEP_ID} IS NULL AND r.kind::text = ${group.kind} AND r.name = ${group.name}`,
    );
  return c;
}

/**
 * `"Run" r`, joined with `"Host" h` only when the filters (or a host grouping) name the host: the
 * join keeps every run (hostId is required), but costs a third of a count over 40,000 runs.
 */
export function runsFrom(f: RunFilters, groupBy: RunFilters["group"] = undefined): Prisma.Sql {
  const sweepHost = f.sweep ? parseRunGroupKey(f.sweep) : null;
  return f.host || groupBy === "host" || (sweepHost && "host" in sweepHost)
    ? Prisma.sql`"Run" r JOIN "Host" h ON h.id = r."hostId"`
    : Prisma.sql`"Run" r`;
}

/** `WHERE …` of a list of conditions (TRUE when empty). */
export function whereOf(conditions: Prisma.Sql[]): Prisma.Sql {
  return conditions.length > 0
    ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`
    : Prisma.empty;
}
