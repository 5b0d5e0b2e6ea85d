import type { PrismaClient } from "@/generated/prisma/client";
import { ARTIFACT_PAGE_MAX } from "@/lib/api/runs";
import { isoTime } from "@/lib/iso-time";
import { stepValue } from "@/lib/metrics/steps";
import { NotFoundError } from "@/lib/server/errors";
import type { ArtifactView } from "@/lib/view-models/pipeline";

const ARTIFACT_LIMIT = ARTIFACT_PAGE_MAX;

/**
 * Artifacts of run `runId`, newest first (time, then id), `limit` (1..{@link ARTIFACT_PAGE_MAX})
 * from `offset`, with the run's total count: the artifact table pages through every artifact
 * with it, not only the newest the run page loads.
 */
export async function listRunArtifacts(
  db: PrismaClient,
  runId: number,
  offset = 0,
  limit: number = ARTIFACT_LIMIT,
): Promise<{ artifacts: ArtifactView[]; total: number }> {
  const [rows, total] = await Promise.all([
    db.artifact.findMany({
      where: { runId },
      orderBy: [{ ts: "desc" }, { id: "desc" }],
      skip: Math.max(0, offset),
      take: Math.min(Math.max(1, limit), ARTIFACT_LIMIT),
      select: { id: true, kind: true, uri: true, sizeBytes: true, step: true, ts: true },
    }),
    db.artifact.count({ where: { runId } }),
  ]);
  return {
    artifacts: rows.map((a) => ({
      id: a.id,
      kind: a.kind,
      uri: a.uri,
      sizeBytes: a.sizeBytes,
      step: a.step === null ? null : stepValue(a.step),
      ts: isoTime(a.ts),
    })),
    total,
  };
}

/**
 * One page of run `runId`'s artifacts for `GET /api/runs/:id/artifacts` ({@link listRunArtifacts}).
 * @throws NotFoundError when no run has this id.
 */
export async function getRunArtifactsPage(
  db: PrismaClient,
  runId: number,
  offset: number,
  limit: number,
): Promise<{ artifacts: ArtifactView[]; total: number }> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  return listRunArtifacts(db, runId, offset, limit);
}

/** The newest page of run `runId`'s artifacts (the run page's first load; {@link listRunArtifacts}). */
export function runArtifacts(
  db: PrismaClient,
  runId: number,
): Promise<{ artifacts: ArtifactView[]; total: number }> {
  return listRunArtifacts(db, runId);
}
