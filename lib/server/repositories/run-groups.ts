import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { parseRunGroupKey, runGroupLabel } from "@/lib/run-list";
import type { RunGroupSummary } from "@/lib/view-models";

import {
  filterConditions,
  groupKeySql,
  PEAK_JOIN,
  runsFrom,
  whereOf,
  type RunFilters,
} from "./run-filters";
import { deriveState, type RunRow } from "./runs";

interface MemberRow {
  id: number;
  key: string;
  status: RunRow["status"];
  lastPushAt: Date;
  stallAfterS: number;
  startedAt: Date;
  hostId: number;
  peak: number | null;
}

/**
 * For the default grouping (repeated runs: a sweep id, else kind and name), a condition the
 * indexes serve that every member of the `keys` groups meets: its name is one of the name groups'
 * (Run_name_id_idx) or its config holds one of the sweep ids, as text or as a number (the GIN
 * index on config). Other groupings: null (the key is computed per row).
 */
function defaultGroupMembers(by: RunFilters["group"], keys: string[]): Prisma.Sql | null {
  if (by !== undefined) return null;
  const names: string[] = [];
  const sweeps: Prisma.Sql[] = [];
  for (const key of keys) {
    const p = parseRunGroupKey(key);
    if (p === null) continue;
    if ("name" in p && "kind" in p) names.push(p.name);
    else if ("sweep" in p) {
      sweeps.push(Prisma.sql`r.config @> ${JSON.stringify({ sweep: p.sweep })}::jsonb`);
      const n = Number(p.sweep);
      if (p.sweep.trim() !== "" && Number.isFinite(n))
        sweeps.push(Prisma.sql`r.config @> ${JSON.stringify({ sweep: n })}::jsonb`);
    } else return null;
  }
  const any = [...(names.length ? [Prisma.sql`r.name = ANY(${names}::text[])`] : []), ...sweeps];
  return any.length ? Prisma.sql`(${Prisma.join(any, " OR ")})` : null;
}

/**
 * Summaries of the repeated-run groups among `keys` (the groups of one page's runs) over every
 * run matching `filters` (all pages, the cursor ignored): groups with fewer than two matching
 * runs are left out. The default grouping finds its candidates through indexes
 * ({@link defaultGroupMembers}); the others compute the group key per row, scanning the filtered
 * runs once (fine at the tens of thousands of runs a team keeps).
 */
export async function listRunGroups(
  db: PrismaClient,
  filters: RunFilters,
  keys: string[],
  now: Date,
): Promise<RunGroupSummary[]> {
  if (keys.length === 0) return [];
  const GROUP_KEY = groupKeySql(filters.group);
  const candidates = defaultGroupMembers(filters.group, keys);
  const rows = await db.$queryRaw<MemberRow[]>`
    SELECT r.id, ${GROUP_KEY} AS key, r.status::text AS status, r."lastPushAt", r."stallAfterS", r."startedAt", r."hostId", p.peak
    FROM ${runsFrom(filters, filters.group)} ${PEAK_JOIN}
    ${whereOf([...filterConditions(filters), ...(candidates ? [candidates] : []), Prisma.sql`${GROUP_KEY} = ANY(${keys}::text[])`])}`;
  const refine = filters.status === "stale" || filters.status === "running";
  const members = new Map<string, MemberRow[]>();
  for (const r of rows) {
    if (refine && deriveState(r.status, r.lastPushAt, r.stallAfterS, now) !== filters.status)
      continue;
    const list = members.get(r.key);
    if (list) list.push(r);
    else members.set(r.key, [r]);
  }
  const out: RunGroupSummary[] = [];
  for (const key of keys) {
    const list = members.get(key);
    if (!list || list.length < 2) continue;
    const latest = list.reduce((a, b) =>
      b.startedAt > a.startedAt || (+b.startedAt === +a.startedAt && b.id > a.id) ? b : a,
    );
    const best = list.reduce<MemberRow | null>(
      (a, b) => (b.peak !== null && (a === null || a.peak === null || b.peak > a.peak) ? b : a),
      null,
    );
    out.push({
      key,
      label: runGroupLabel(key),
      count: list.length,
      hostCount: new Set(list.map((r) => r.hostId)).size,
      bestPeakOutputTokPerS: best?.peak ?? null,
      bestRunId: best?.peak != null ? best.id : null,
      latestRunId: latest.id,
      latestStartedAt: latest.startedAt.toISOString(),
      latestState: deriveState(latest.status, latest.lastPushAt, latest.stallAfterS, now),
    });
  }
  return out;
}
