import type { PrismaClient } from "@/generated/prisma/client";
import { type SearchQuery } from "@/lib/api/search";
import { checkpointPath } from "@/lib/checkpoint-paths";
import { runPath } from "@/lib/paths";
import type { SearchHit, SearchResults } from "@/lib/view-models/search";

/**
 * Global search across runs (name, key, tags, notes), agent sessions (title, key, the todo texts
 * of their latest list), plans (title, key), hosts (name) and checkpoints (artifact URI).
 *
 * Substring matching is ILIKE '%q%', which PostgreSQL serves from the pg_trgm GIN indexes of
 * migration 20261205220000_search_trgm once the query has 3+ characters (shorter queries scan,
 * which is still cheap below ~100k rows). Tags match whole (as typed or lower-cased) through the
 * GIN array index. Archived runs are left out, as in every list.
 */

/** `q` as an ILIKE pattern matching it anywhere (its own `%`, `_` and `\` taken literally). */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

/** Runs the five searches in parallel; each group best first (exact name/key first, then newest). */
export async function search(db: PrismaClient, { q, limit }: SearchQuery): Promise<SearchResults> {
  const pattern = containsPattern(q);
  const [runs, sessions, plans, hosts, checkpoints] = await Promise.all([
    searchRuns(db, q, pattern, limit),
    searchSessions(db, q, pattern, limit),
    searchPlans(db, q, pattern, limit),
    searchHosts(db, pattern, limit),
    searchCheckpoints(db, pattern, limit),
  ]);
  return { q, runs, sessions, plans, hosts, checkpoints };
}

/** How many of the newest runs the first, bounded pass of {@link searchRuns} reads. */
export const RECENT_RUNS_WINDOW = 3000;

type RunRow = {
  id: number;
  name: string;
  key: string;
  kind: string;
  tags: string[];
  notes: string | null;
};

/**
 * Runs matching `q`, newest first, a run whose key is exactly `q` before the rest. Two passes keep both
 * kinds of query fast at 40k+ runs: a common term matches among the newest
 * {@link RECENT_RUNS_WINDOW} runs (walked in startedAt order, a bounded read), and only when that
 * finds too few does a rare term go to the trigram indexes (a bitmap over few rows). PostgreSQL's
 * own choice between the two mis-estimates trigram selectivity (150 ms for one key at 40k runs).
 * A 1-2 character query cannot use trigrams: it searches the recent window only.
 */
async function searchRuns(
  db: PrismaClient,
  q: string,
  pattern: string,
  limit: number,
): Promise<SearchHit[]> {
  const lower = q.toLowerCase();
  const exact = await db.$queryRaw<RunRow[]>`
    SELECT id, name, key, kind::text AS kind, tags, notes FROM "Run"
     WHERE "archivedAt" IS NULL AND key = ${q}`;
  let rows = await db.$queryRaw<RunRow[]>`
    SELECT id, name, key, kind, tags, notes FROM (
      SELECT id, name, key, kind::text AS kind, tags, notes, "startedAt", "archivedAt"
        FROM "Run" ORDER BY "startedAt" DESC, id DESC LIMIT ${RECENT_RUNS_WINDOW}
    ) recent
     WHERE "archivedAt" IS NULL
       AND (name ILIKE ${pattern} OR key ILIKE ${pattern} OR notes ILIKE ${pattern} OR tags && ARRAY[${q}, ${lower}]::text[])
     ORDER BY "startedAt" DESC, id DESC LIMIT ${limit}`;
  if (rows.length < limit && q.length >= 3) {
    // MATERIALIZED keeps the planner on the bitmap of the trigram indexes.
    rows = await db.$queryRaw<RunRow[]>`
      WITH found AS MATERIALIZED (
        SELECT id, name, key, kind::text AS kind, tags, notes, "startedAt" FROM "Run"
         WHERE "archivedAt" IS NULL
           AND (name ILIKE ${pattern} OR key ILIKE ${pattern} OR notes ILIKE ${pattern} OR tags && ARRAY[${q}, ${lower}]::text[]))
      SELECT id, name, key, kind, tags, notes FROM found ORDER BY "startedAt" DESC, id DESC LIMIT ${limit}`;
  }
  const seen = new Set<number>();
  const merged = [...exact, ...rows]
    .filter((r) => !seen.has(r.id) && seen.add(r.id))
    .slice(0, limit);
  return merged.map((r) => {
    const tag = r.tags.find((t) => t.toLowerCase() === lower);
    const why =
      r.name.toLowerCase().includes(lower) || r.key.toLowerCase().includes(lower)
        ? `key ${r.key}`
        : tag !== undefined
          ? `tag ${tag}`
          : `notes: ${excerpt(r.notes ?? "", lower)}`;
    return {
      kind: "run",
      id: String(r.id),
      title: r.name,
      detail: `${r.kind} · ${why}`,
      href: runPath(r.id),
    };
  });
}

async function searchSessions(
  db: PrismaClient,
  q: string,
  pattern: string,
  limit: number,
): Promise<SearchHit[]> {
  // The latest todo list of each session (its current items), searched item by item.
  const rows = await db.$queryRaw<
    Array<{ id: number; key: string; title: string | null; source: string; todo: string | null }>
  >`
    SELECT id, key, title, source, todo FROM (
      SELECT s.id, s.key, s.title, s.source, s."lastUpdateAt",
             (SELECT item->>'content'
                FROM jsonb_array_elements(CASE WHEN jsonb_typeof(l.items) = 'array' THEN l.items ELSE '[]'::jsonb END) AS item
               WHERE item->>'content' ILIKE ${pattern}
               LIMIT 1) AS todo
        FROM "AgentSession" s
        LEFT JOIN LATERAL (
          SELECT t.items FROM "TodoSnapshot" t WHERE t."sessionId" = s.id ORDER BY t.ts DESC, t.seq DESC LIMIT 1
        ) l ON true
    ) found
     WHERE title ILIKE ${pattern} OR key ILIKE ${pattern} OR todo IS NOT NULL
     ORDER BY (lower(coalesce(title, '')) = ${q.toLowerCase()}) DESC, "lastUpdateAt" DESC, id DESC
     LIMIT ${limit}`;
  return rows.map((r) => ({
    kind: "session",
    id: String(r.id),
    title: r.title ?? r.key,
    detail:
      r.todo !== null ? `todo: ${excerpt(r.todo, q.toLowerCase())}` : `${r.source} · ${r.key}`,
    href: `/sessions/${r.id}`,
  }));
}

async function searchPlans(
  db: PrismaClient,
  q: string,
  pattern: string,
  limit: number,
): Promise<SearchHit[]> {
  const rows = await db.$queryRaw<
    Array<{ id: number; key: string; title: string; status: string }>
  >`
    SELECT id, key, title, status::text AS status
      FROM "Plan"
     WHERE title ILIKE ${pattern} OR key ILIKE ${pattern}
     ORDER BY (lower(title) = ${q.toLowerCase()}) DESC, "proposedAt" DESC, id DESC
     LIMIT ${limit}`;
  return rows.map((r) => ({
    kind: "plan",
    id: String(r.id),
    title: r.title,
    detail: `${r.status.replace("_", " ")} · ${r.key}`,
    href: `/plans/${r.id}`,
  }));
}

async function searchHosts(db: PrismaClient, pattern: string, limit: number): Promise<SearchHit[]> {
  const rows = await db.$queryRaw<Array<{ name: string }>>`
    SELECT name FROM "Host" WHERE name ILIKE ${pattern} ORDER BY length(name), name LIMIT ${limit}`;
  return rows.map((r) => ({
    kind: "host",
    id: r.name,
    title: r.name,
    detail: null,
    href: `/hosts/${encodeURIComponent(r.name)}`,
  }));
}

async function searchCheckpoints(
  db: PrismaClient,
  pattern: string,
  limit: number,
): Promise<SearchHit[]> {
  const rows = await db.$queryRaw<Array<{ uri: string; runs: number }>>`
    SELECT uri, count(*)::int AS runs FROM "Artifact"
     WHERE kind = 'checkpoint' AND uri ILIKE ${pattern}
     GROUP BY uri ORDER BY max(ts) DESC LIMIT ${limit}`;
  return rows.map((r) => ({
    kind: "checkpoint",
    id: r.uri,
    title: uriLeaf(r.uri),
    detail: r.uri,
    href: checkpointPath(r.uri),
  }));
}

/**
 * The last non-empty path segment of a URI (`s3://b/run/checkpoint-12000/` -> `checkpoint-12000`):
 * what tells checkpoints apart, so the search lists it as the title and the whole URI (cut at its
 * start) below it. The URI itself when it has no segment.
 */
export function uriLeaf(uri: string): string {
  const segments = uri.split(/[\\/]/).filter((s) => s.length > 0);
  const leaf = segments.at(-1);
  return leaf && segments.length > 1 ? leaf : uri;
}

/** Up to ~60 characters of `text` around the first match of `needle` (lower-case), with ellipses. */
export function excerpt(text: string, needle: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const at = flat.toLowerCase().indexOf(needle);
  if (flat.length <= 60) return flat;
  const start = Math.max(0, (at < 0 ? 0 : at) - 20);
  const cut = flat.slice(start, start + 60);
  return `${start > 0 ? "…" : ""}${cut}${start + 60 < flat.length ? "…" : ""}`;
}
