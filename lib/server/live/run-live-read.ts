import type { PrismaClient } from "@/generated/prisma/client";
import { reviveApiJson, stringifyApiJson } from "@/lib/protocol/api-json";
import { extendRunMetrics, getRunMetrics } from "@/lib/server/metric-store";
import { getLiveTopicSeq } from "@/lib/server/repositories/live-topics";
import { getRunProgress } from "@/lib/server/repositories/pipelines";
import { getRun } from "@/lib/server/repositories/runs";
import type { RunLiveView } from "@/lib/view-models/live";

import type { TopicRead } from "./shared-reads";

/**
 * How long a live topic's chart series may be extended by appended points alone (extendRunMetrics)
 * before it is read in full again (ms): a value rewritten at a step the charts already show
 * reaches them within this time; appended steps with every read.
 */
export const LIVE_FULL_READ_MS = 5_000;

/**
 * Reads a `run:<id>` topic for {@link SharedReads}: the seq first, then the run page's three
 * views at one server time, as the browser would have fetched them (through the API's JSON and
 * back: dates as strings, non-finite numbers kept as numbers), so deltas compare what it holds.
 * The metric series are read in full at most every {@link LIVE_FULL_READ_MS} (`memo`: when, epoch
 * ms); in between, the series `previous` holds gain the points appended since (a few rows, not the
 * whole run's tiers), unless extendRunMetrics finds only a full read exact.
 * @throws NotFoundError when the run does not exist; Error for a topic that is not `run:<id>`.
 */
export async function readRunLive(
  db: PrismaClient,
  topic: string,
  now: Date = new Date(),
  previous: TopicRead | null = null,
): Promise<TopicRead> {
  const m = /^run:(\d+)$/.exec(topic);
  if (!m) throw new Error(`not a run topic: ${topic}`);
  const runId = Number(m[1]);
  const seq = await getLiveTopicSeq(db, topic);
  const prev = previous?.data as RunLiveView | undefined;
  const fullAt = typeof previous?.memo === "number" ? previous.memo : null;
  const extend =
    prev?.metrics && prev.metrics.runId === runId && fullAt !== null
      ? now.getTime() - fullAt < LIVE_FULL_READ_MS
      : false;
  const [run, progress, extended] = await Promise.all([
    getRun(db, runId, now),
    getRunProgress(db, runId, now),
    extend ? extendRunMetrics(db, prev!.metrics) : null,
  ]);
  const metrics = extended ?? (await getRunMetrics(db, runId));
  // The series are in the API's form already (steps as numbers or decimal strings, values as
  // numbers): only the run and its progress go through JSON and back.
  const rest = JSON.parse(stringifyApiJson({ run, progress }), reviveApiJson) as Omit<
    RunLiveView,
    "metrics"
  >;
  const view: RunLiveView = { ...rest, metrics };
  return { seq, data: view, memo: extended ? fullAt : now.getTime() };
}
