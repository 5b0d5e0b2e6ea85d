import type { PrismaClient } from "@/generated/prisma/client";
import { isoTime } from "@/lib/iso-time";
import { checkpointKey, draftSettingsKey, type TauAggregate } from "@/lib/metrics/tau";
import type { CheckpointRefView, TauCountsView } from "@/lib/view-models/evals";

import { asSettings } from "./baselines";

/**
 * Checkpoint and τ helpers shared by the eval reads (one run's evaluations in evals.ts, the τ
 * overview across runs in eval-overview.ts): keys, ordering, the latest checkpoint, and which run
 * produced a checkpoint URI.
 */

/** Draft-settings key of results that carry no settings. */
export const NO_DRAFT_KEY = "none";
/** Checkpoint key of results that name no checkpoint. */
export const NO_CHECKPOINT_KEY = "none";

/** Orders checkpoints: step ascending (64-bit, missing last), then label (missing last), then first result time. */
export function compareCheckpoints(
  a: { step: string | null; label: string | null; firstAt: string },
  b: { step: string | null; label: string | null; firstAt: string },
): number {
  if (a.step !== b.step) {
    if (a.step === null) return 1;
    if (b.step === null) return -1;
    const d = BigInt(a.step) - BigInt(b.step);
    if (d !== 0n) return d < 0n ? -1 : 1;
  }
  if (a.label !== b.label) {
    if (a.label === null) return 1;
    if (b.label === null) return -1;
    return a.label < b.label ? -1 : 1;
  }
  return a.firstAt < b.firstAt ? -1 : a.firstAt > b.firstAt ? 1 : 0;
}

/**
 * Key of the latest checkpoint: the highest step when any checkpoint has one (64-bit compare),
 * else the one scored most recently (latest `lastAt`, then latest `firstAt`); null for none.
 * Order of the list does not matter: "last in sort order" would pick a label or an unnamed one.
 */
export function latestCheckpointKey(
  points: ReadonlyArray<{ key: string; step: string | null; firstAt: string; lastAt: string }>,
): string | null {
  let best: (typeof points)[number] | null = null;
  for (const p of points) {
    if (best === null) best = p;
    else if (p.step !== null || best.step !== null) {
      if (p.step !== null && (best.step === null || BigInt(p.step) > BigInt(best.step))) best = p;
    } else if (p.lastAt > best.lastAt || (p.lastAt === best.lastAt && p.firstAt > best.firstAt))
      best = p;
  }
  return best?.key ?? null;
}

/** Items grouped by `keyOf`, groups in first-seen order. */
export function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** A checkpoint's names (first non-null of its members) and its first/last result times. */
export function checkpointRef(
  key: string,
  refs: ReadonlyArray<{
    step: string | null;
    label: string | null;
    uri: string | null;
    first: Date;
    last: Date;
  }>,
): CheckpointRefView {
  return {
    key,
    step: refs.find((m) => m.step !== null)?.step ?? null,
    label: refs.find((m) => m.label !== null)?.label ?? null,
    uri: refs.find((m) => m.uri !== null)?.uri ?? null,
    firstAt: isoTime(new Date(Math.min(...refs.map((m) => m.first.getTime())))),
    lastAt: isoTime(new Date(Math.max(...refs.map((m) => m.last.getTime())))),
  };
}

/** Checkpoint key (lib/metrics/tau.ts `checkpointKey`) of a result's step, label and URI; {@link NO_CHECKPOINT_KEY} when it names none. */
export function keyOfCheckpoint(
  step: string | null,
  label: string | null,
  uri: string | null,
): string {
  return (
    checkpointKey({ step: step ?? undefined, label: label ?? undefined, uri: uri ?? undefined }) ??
    NO_CHECKPOINT_KEY
  );
}

/** Draft-settings key of a result's stored `draft` JSON; {@link NO_DRAFT_KEY} when it carries none. */
export function draftKey(draft: unknown): string {
  return draftSettingsKey(asSettings(draft)) ?? NO_DRAFT_KEY;
}

/** A 64-bit checkpoint step as decimal text (JSON cannot carry bigint), null stays null. */
export function stepText(step: bigint | null): string | null {
  return step === null ? null : step.toString();
}

/** τ and counts of an aggregate, with `results` overridden (group rows of SQL stand for many results). */
export function countsView(agg: TauAggregate, results = agg.results): TauCountsView {
  return {
    tau: agg.tau,
    verifySteps: agg.verifySteps,
    acceptedTokens: agg.acceptedTokens,
    tokensProduced: agg.tokensProduced,
    results,
  };
}

/** Unweighted mean of finite values, null when there are none. */
export function meanOf(values: ReadonlyArray<number | null>): number | null {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v !== null && Number.isFinite(v)) {
      sum += v;
      n++;
    }
  }
  return n === 0 ? null : sum / n;
}

/** The distinct non-null values, sorted by code unit. */
export function sortedDistinct(values: ReadonlyArray<string | null>): string[] {
  return [...new Set(values.filter((v): v is string => v !== null))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
}

/** The run that produced a checkpoint URI (holds its Artifact), with the artifact's step. */
export interface CheckpointProducer {
  runId: number;
  step: bigint | null;
  training: boolean;
}

/**
 * For each URI, the run holding an Artifact with that URI: a `training` run first, then the
 * earliest artifact (ties: lowest artifact id). URIs no artifact has are absent.
 */
export async function checkpointProducers(
  db: PrismaClient,
  uris: ReadonlyArray<string | null>,
): Promise<Map<string, CheckpointProducer>> {
  const wanted = [...new Set(uris.filter((u): u is string => u !== null))];
  const producer = new Map<string, CheckpointProducer>();
  if (wanted.length === 0) return producer;
  const artifacts = await db.artifact.findMany({
    where: { uri: { in: wanted } },
    select: { runId: true, uri: true, step: true, run: { select: { kind: true } } },
    orderBy: [{ ts: "asc" }, { id: "asc" }],
  });
  for (const a of artifacts) {
    const current = producer.get(a.uri);
    const training = a.run.kind === "training";
    // Ordered by time: keep the first, unless a training run comes later and the first was not one.
    if (!current || (training && !current.training))
      producer.set(a.uri, { runId: a.runId, step: a.step, training });
  }
  return producer;
}

// ---------------------------------------------------------------------------------------------
