import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { type BaselineInput, type BaselinePatch } from "@/lib/api/baselines";
import { isoTime } from "@/lib/iso-time";
import { LIVE_CHANNEL } from "@/lib/protocol/live";
import { NotFoundError } from "@/lib/server/errors";
import type { BaselineListView, BaselineView, DraftSettings } from "@/lib/view-models/evals";

/**
 * Reference baselines (e.g. τ 12.4 of a public drafter) drawn as labelled lines on eval charts:
 * reads, and the approvers' create / update / delete behind /api/baselines. Workers may also
 * upsert them by name with `baseline.upsert` frames (lib/server/ingest/writers/evals.ts).
 */

/** Metric name of acceptance-length baselines. */
export const TAU_METRIC = "tau";

/** A stored settings object as flat settings ({} for anything else). */
export function asSettings(v: unknown): DraftSettings {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as DraftSettings) : {};
}

const baselineSelect = {
  id: true,
  name: true,
  metric: true,
  value: true,
  tolerance: true,
  dataset: true,
  settings: true,
  sourceUrl: true,
  updatedAt: true,
} as const;
type BaselineRow = Prisma.BaselineGetPayload<{ select: typeof baselineSelect }>;

function toBaselineView(b: BaselineRow): BaselineView {
  return {
    id: b.id,
    name: b.name,
    metric: b.metric,
    value: b.value,
    tolerance: b.tolerance,
    dataset: b.dataset,
    settings: asSettings(b.settings),
    sourceUrl: b.sourceUrl,
    updatedAt: isoTime(b.updatedAt),
  };
}

/** Baselines of metric `tau`, lowest value first; with a dataset, those of that dataset or of none. */
export async function tauBaselines(
  db: PrismaClient,
  dataset: string | null,
): Promise<BaselineView[]> {
  const rows = await db.baseline.findMany({
    where: {
      metric: TAU_METRIC,
      ...(dataset !== null ? { OR: [{ dataset: null }, { dataset }] } : {}),
    },
    orderBy: [{ value: "asc" }, { name: "asc" }],
    select: baselineSelect,
  });
  return rows.map(toBaselineView);
}

/** Outcome of a baseline write: the baseline, or `baseline_exists` when another one has the name. */
export type BaselineWriteResult =
  { ok: true; baseline: BaselineView } | { ok: false; code: "baseline_exists"; message: string };

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";
}

function isNotFound(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2025";
}

/** Tells browsers on /baselines, /evals and run pages; NOTIFY is delivered at commit. */
function notifyBaselines(db: PrismaClient | Tx) {
  return db.$executeRaw`SELECT pg_notify(${LIVE_CHANNEL}, ${JSON.stringify({ topic: "baselines" })})`;
}

/** Every baseline (any metric), by metric then name. */
export async function listBaselines(
  db: PrismaClient,
  now: Date = new Date(),
): Promise<BaselineListView> {
  const rows = await db.baseline.findMany({
    orderBy: [{ metric: "asc" }, { name: "asc" }],
    select: baselineSelect,
  });
  return { asOf: isoTime(now), baselines: rows.map(toBaselineView) };
}

/** Advisory lock key serializing API baseline writes, so the case-insensitive name check cannot race. */
const BASELINE_NAMES_LOCK = 0x6261_7365; // "base"

type Tx = Prisma.TransactionClient;

/** Another baseline (not `exceptId`) whose name equals `name` ignoring case, or null. */
async function nameTaken(tx: Tx, name: string, exceptId: number | null): Promise<string | null> {
  const other = await tx.baseline.findFirst({
    where: {
      name: { equals: name, mode: "insensitive" },
      ...(exceptId !== null ? { id: { not: exceptId } } : {}),
    },
    select: { name: true },
  });
  return other?.name ?? null;
}

function exists(name: string, taken: string): BaselineWriteResult {
  const same =
    taken === name ? "" : ` (as ${JSON.stringify(taken)}; names are compared ignoring case)`;
  return {
    ok: false,
    code: "baseline_exists",
    message: `a baseline named ${JSON.stringify(name)} already exists${same}`,
  };
}

/**
 * Creates a baseline and announces it on topic `baselines`; `baseline_exists` when another
 * baseline has the name ignoring case ("DFlash ref" and "dflash REF" are one name for people; the
 * `baseline.upsert` frame matches exact names only, see docs/protocol.md).
 */
export async function createBaseline(
  db: PrismaClient,
  input: BaselineInput,
  at: Date = new Date(),
): Promise<BaselineWriteResult> {
  try {
    return await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BASELINE_NAMES_LOCK})`;
      const taken = await nameTaken(tx, input.name, null);
      if (taken !== null) return exists(input.name, taken);
      const row = await tx.baseline.create({
        data: {
          name: input.name,
          metric: input.metric,
          value: input.value,
          tolerance: input.tolerance ?? null,
          dataset: input.dataset ?? null,
          settings: input.settings ?? {},
          sourceUrl: input.sourceUrl ?? null,
          updatedAt: at,
        },
        select: baselineSelect,
      });
      await notifyBaselines(tx);
      return { ok: true, baseline: toBaselineView(row) } as const;
    });
  } catch (err) {
    // A frame upserting the same exact name between our check and insert.
    if (isUniqueViolation(err)) return exists(input.name, input.name);
    throw err;
  }
}

/**
 * Changes the given fields of a baseline (null clears tolerance, dataset or sourceUrl) and
 * announces it; `baseline_exists` when renamed onto another baseline's name (ignoring case).
 * @throws NotFoundError when no baseline has this id.
 */
export async function updateBaseline(
  db: PrismaClient,
  id: number,
  patch: BaselinePatch,
  at: Date = new Date(),
): Promise<BaselineWriteResult> {
  try {
    return await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BASELINE_NAMES_LOCK})`;
      if (patch.name !== undefined) {
        const taken = await nameTaken(tx, patch.name, id);
        if (taken !== null) return exists(patch.name, taken);
      }
      const row = await tx.baseline.update({
        where: { id },
        data: {
          name: patch.name,
          metric: patch.metric,
          value: patch.value,
          tolerance: patch.tolerance,
          dataset: patch.dataset,
          settings: patch.settings,
          sourceUrl: patch.sourceUrl,
          updatedAt: at,
        },
        select: baselineSelect,
      });
      await notifyBaselines(tx);
      return { ok: true, baseline: toBaselineView(row) } as const;
    });
  } catch (err) {
    if (isUniqueViolation(err)) return exists(patch.name ?? "", patch.name ?? "");
    if (isNotFound(err)) throw new NotFoundError(`baseline ${id} not found`);
    throw err;
  }
}

/** Deletes a baseline and announces it. @throws NotFoundError when no baseline has this id. */
export async function deleteBaseline(db: PrismaClient, id: number): Promise<void> {
  try {
    await db.$transaction([
      db.baseline.delete({ where: { id }, select: { id: true } }),
      notifyBaselines(db),
    ]);
  } catch (err) {
    if (isNotFound(err)) throw new NotFoundError(`baseline ${id} not found`);
    throw err;
  }
}
