import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { runGroupLabel } from "@/lib/run-list";
import type { RunGroupSummary } from "@/lib/view-models";

import { filterConditions, groupKeySql, PEAK_JOIN, whereOf, type RunFilters } from "./run-filters";
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
 * Summaries of the repeated-run groups among `keys` (the groups of one page's runs) over every
 * run matching `filters` (all pages, the cursor ignored): groups with fewer than two matching
 * runs are left out. The group key is computed per row (no index), so this scans the filtered
 * runs once; fine at the tens of thousands of runs a team keeps.
 */
export async function listRunGroups(
  db: PrismaClient,
  filters: RunFilters,
  keys: string[],
  now: Date,
): Promise<RunGroupSummary[]> {
  if (keys.length === 0) return [];
  const GROUP_KEY = groupKeySql(filters.group);
  const rows = await db.$queryRaw<MemberRow[]>`
    SELECT r.id, ${GROUP_KEY} AS key, r.status::text AS status, r."lastPushAt", r."stallAfterS", r."startedAt", r."hostId", p.peak
    FROM "Run" r JOIN "Host" h ON h.id = r."hostId" ${PEAK_JOIN}
    ${whereOf([...filterConditions(filters), Prisma.sql`${GROUP_KEY} = ANY(${keys}::text[])`])}`;
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
