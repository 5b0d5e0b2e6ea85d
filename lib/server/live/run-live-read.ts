import type { PrismaClient } from "@/generated/prisma/client";
import { reviveApiJson, stringifyApiJson } from "@/lib/protocol/api-json";
import { getRunMetrics } from "@/lib/server/metric-store";
import { getLiveTopicSeq } from "@/lib/server/repositories/live-topics";
import { getRunProgress } from "@/lib/server/repositories/pipelines";
import { getRun } from "@/lib/server/repositories/runs";
import type { RunLiveView } from "@/lib/view-models/live";

import type { TopicRead } from "./shared-reads";

/**
 * Reads a `run:<id>` topic for {@link SharedReads}: the seq first, then the run page's three
 * views at one server time, as the browser would have fetched them (through the API's JSON and
 * back: dates as strings, non-finite numbers kept as numbers), so deltas compare what it holds.
 * @throws NotFoundError when the run does not exist; Error for a topic that is not `run:<id>`.
 */
export async function readRunLive(
  db: PrismaClient,
  topic: string,
  now: Date = new Date(),
): Promise<TopicRead> {
  const m = /^run:(\d+)$/.exec(topic);
  if (!m) throw new Error(`not a run topic: ${topic}`);
  const runId = Number(m[1]);
  const seq = await getLiveTopicSeq(db, topic);
  const [run, progress, metrics] = await Promise.all([
    getRun(db, runId, now),
    getRunProgress(db, runId, now),
    getRunMetrics(db, runId),
  ]);
  const view: RunLiveView = { run, progress, metrics };
  return { seq, data: JSON.parse(stringifyApiJson(view), reviveApiJson) as unknown };
}
