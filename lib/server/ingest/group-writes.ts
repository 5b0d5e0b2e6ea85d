import type pg from "pg";
import type { z } from "zod";

import { UPLOAD_INVARIANT_COUNTERS } from "@/lib/metrics/invariants";
import type { BenchmarkPoint, ClientFrame, evalResult } from "@/lib/protocol";
import type { GroupTrace } from "@/lib/server/ingest-trace";
import { upsertMetricPoints, type MetricFrame } from "@/lib/server/metric-store";

import { upsertBenchmarkPoints } from "./writers/benchmark-points";
import { upsertEvalResults } from "./writers/evals";
import { applyProgress, checkRunInvariants, type ProgressWrite } from "./writers/progress";
import {
  insertEvents,
  recordHeartbeats,
  touchRuns,
  type EventWrite,
  type HeartbeatWrite,
} from "./writers/runs";

/**
 * Writes that many frames of a group share, buffered and written with one statement each:
 * benchmark points and eval results of consecutive frames (any other frame flushes them first,
 * so effects keep the order the worker sent them in); metric points of the whole group at its
 * end (the metric writer takes two or three round trips for all runs; no other frame type reads them, so only
 * the order of their overflow alert events against other events can differ); heartbeats,
 * progress samples and events at the end (no other frame type reads what they write; events keep
 * their order); then the touched runs and the invariant checks of runs with new progress.
 */
export class GroupWrites {
  private points: Array<{ runId: number; point: BenchmarkPoint }> = [];
  private metrics: MetricFrame[] = [];
  private evals: Array<{ runId: number; result: z.infer<typeof evalResult> }> = [];
  private readonly heartbeats: HeartbeatWrite[] = [];
  private readonly progress: ProgressWrite[] = [];
  private readonly events: EventWrite[] = [];
  readonly touched = new Set<number>();
  /** Runs whose progress frames carried a counter of the upload invariant (checked at the end). */
  private readonly progressRuns = new Set<number>();

  constructor(
    readonly client: pg.PoolClient,
    readonly at: Date,
    readonly topics: Set<string>,
    private readonly trace?: GroupTrace,
  ) {}

  /** Flushes buffered points and evals before a frame of another type (and metrics with them). */
  async before(type: ClientFrame["type"]): Promise<void> {
    if (
      (type !== "run.benchmark" && this.points.length) ||
      (type !== "run.eval" && this.evals.length)
    )
      await this.flush();
  }

  point(runId: number, point: BenchmarkPoint): void {
    this.points.push({ runId, point });
  }

  metricFrame(frame: MetricFrame): void {
    this.metrics.push(frame);
  }

  evalResult(runId: number, result: z.infer<typeof evalResult>): void {
    this.evals.push({ runId, result });
  }

  heartbeat(write: HeartbeatWrite): void {
    this.heartbeats.push(write);
    this.topics.add("hosts");
  }

  progressFrame(write: ProgressWrite): void {
    this.progress.push(write);
    // The invariant reads two counters only: a frame without them cannot change its alert state
    // (a round trip saved per group of a fleet's progress frames).
    const counters = write.frame.counters;
    if (counters && UPLOAD_INVARIANT_COUNTERS.some((name) => name in counters))
      this.progressRuns.add(write.runId);
    this.topics.add("runs");
  }

  event(write: EventWrite): void {
    this.events.push(write);
    this.topics.add("events");
  }

  private async flush(): Promise<void> {
    if (this.points.length) await upsertBenchmarkPoints(this.client, this.points, this.at);
    this.points = [];
    if (this.metrics.length) {
      for (const alert of await upsertMetricPoints(this.client, this.metrics, this.at))
        this.event({ runId: alert.runId, event: alert });
    }
    this.metrics = [];
    if (this.evals.length) await upsertEvalResults(this.client, this.evals, this.at);
    this.evals = [];
  }

  /** Writes everything still buffered, touches the runs written to and checks invariants. */
  async finish(): Promise<void> {
    const { client, at, topics, trace } = this;
    await this.flush();
    trace?.mark("metrics");
    await recordHeartbeats(client, this.heartbeats, at);
    trace?.mark("heartbeats");
    await applyProgress(client, this.progress, at);
    trace?.mark("progress");
    await insertEvents(client, this.events, at);
    trace?.mark("events");
    // Run rows are locked already (loadRuns); one global order (by id) all the same.
    const byId = (a: number, b: number) => a - b;
    await touchRuns(client, [...this.touched].sort(byId), at);
    trace?.mark("touch");
    if (await checkRunInvariants(client, [...this.progressRuns].sort(byId), at))
      topics.add("events");
    trace?.mark("invariants");
    if (this.touched.size) topics.add("runs");
  }
}
