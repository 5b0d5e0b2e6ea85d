import type pg from "pg";
import type { z } from "zod";

import { UPLOAD_INVARIANT_COUNTERS } from "@/lib/metrics/invariants";
import type { BenchmarkPoint, ClientFrame, evalResult } from "@/lib/protocol";
import { notOwnerMessage } from "@/lib/server/auth/ownership";
import type { GroupTrace } from "@/lib/server/ingest-trace";
import { upsertMetricPoints, type MetricFrame } from "@/lib/server/metric-store";
import { closeSessionInboxItems, closeSessionNotices } from "@/lib/server/repositories/inbox-agent";
import { closeSessionPlans } from "@/lib/server/repositories/plan-orphans";

import type { FrameOutcome, GroupPart } from "./frame-outcome";
import { loadOwnershipCheck } from "./ownership";
import { upsertBenchmarkPoints } from "./writers/benchmark-points";
import { upsertBaseline, upsertEvalResults } from "./writers/evals";
import { applyProgress, checkRunInvariants, type ProgressWrite } from "./writers/progress";
import {
  appendOutput,
  claimFrameIds,
  endRun,
  insertEvents,
  loadRuns,
  recordHeartbeats,
  releaseFrameIds,
  touchRuns,
  upsertArtifact,
  upsertRun,
  type EventWrite,
  type HeartbeatWrite,
  type RunRef,
  type StoredRun,
} from "./writers/runs";
import { applyActivity, applyTodos, noteSessionSignal, proposePlan } from "./writers/sessions";
import { recordUnapprovedWork } from "./writers/unapproved-work";

/*
 * What one group transaction does (apply.ts opens, retries and commits it): admission of every
 * part (ownership, unknown runs), the group's frame-id claims, then each part's frames in order,
 * with the writes many frames share buffered and written set-based for the whole group.
 */

/** Frame types that refer to a run by its client key. */
const RUN_FRAMES = new Set<ClientFrame["type"]>([
  "run.benchmark",
  "run.progress",
  "run.metrics",
  "run.artifact",
  "run.event",
  "run.output",
  "run.end",
  "run.eval",
]);

type RunScopedFrame = Extract<ClientFrame, { run: string }>;

function refersToRun(f: ClientFrame): f is RunScopedFrame {
  return RUN_FRAMES.has(f.type);
}

/** The run key a frame needs to exist (run.start creates its run; plan.propose may name one). */
function requiredRunKey(f: ClientFrame): string | undefined {
  if (refersToRun(f)) return f.run;
  if (f.type === "plan.propose") return f.run;
  return undefined;
}

/** What one part of a group carries from admission (ownership, unknown runs) to its writes. */
interface PartState {
  part: GroupPart;
  outcomes: Map<number, FrameOutcome>;
  /** Indexes of the frames that passed admission, in order; their ids are claimed next. */
  accepted: number[];
  /** The group's stored runs (shared by its parts, not copied: a group may hold 200 parts). */
  stored: ReadonlyMap<string, StoredRun>;
  /** Runs this part started itself (looked up before `stored`). */
  started: Map<string, RunRef>;
  /** Run keys another host created after the ownership check (a create race, see upsertRun). */
  lostRace: Map<string, StoredRun>;
  /** Claimed frame ids of frames then refused (deleted again before COMMIT: they may be resent). */
  released: string[];
}

/**
 * Applies the group's parts inside the caller's transaction (see applyGroup for the contract);
 * adds the live topics they changed to `topics` (published after COMMIT). Returns each part's
 * outcomes, one per frame in order.
 * @throws whatever PostgreSQL raises; the caller rolls back (and isolates the failing frame).
 */
export async function applyInTransaction(
  client: pg.PoolClient,
  parts: GroupPart[],
  at: Date,
  topics: Set<string>,
  trace?: GroupTrace,
): Promise<FrameOutcome[][]> {
  // 1. Frames that reference runs must name a run that exists or is started earlier in the same
  //    part, and the part's token must be allowed to change what they target (ownership.ts).
  //    The runs of the whole group are looked up and locked in one statement (in id order).
  const referenced = new Set<string>();
  for (const { frames } of parts) {
    for (const f of frames) {
      const key = f.type === "run.start" ? f.run : requiredRunKey(f);
      if (key !== undefined) referenced.add(key);
    }
  }
  const stored = await loadRuns(client, [...referenced]);
  trace?.mark("loadRuns");
  const states: PartState[] = [];
  for (const part of parts) states.push(await admit(client, part, stored));
  trace?.mark("admit");

  // 2. Claim the frame ids of every part in one statement; those already claimed were committed
  //    before: ack without applying. (A (host, id) asked twice in the group goes to the first.)
  const claimKey = (hostId: number, frameId: string) => `${hostId}\u0000${frameId}`;
  const asked = states.flatMap((s) =>
    s.accepted.map((i) => ({ hostId: s.part.principal.hostId, frameId: s.part.frames[i]!.id })),
  );
  const claimed = new Set(
    (await claimFrameIds(client, asked)).map((c) => claimKey(c.hostId, c.frameId)),
  );
  trace?.mark("claim");

  // 3. Apply each part's frames in order; writes that several frames share are buffered across
  //    the whole group and written once (GroupWrites).
  const writes = new GroupWrites(client, at, topics, trace);
  for (const s of states) {
    const toApply: number[] = [];
    for (const i of s.accepted) {
      const f = s.part.frames[i]!;
      if (claimed.delete(claimKey(s.part.principal.hostId, f.id))) toApply.push(i);
      else s.outcomes.set(i, { id: f.id, ok: true, duplicate: true });
    }
    await applyPart(writes, s, toApply);
  }
  trace?.mark("parts");
  await writes.finish();
  for (const s of states) await releaseFrameIds(client, s.part.principal.hostId, s.released);
  trace?.mark("release");
  return states.map((s) => s.part.frames.map((_, i) => s.outcomes.get(i)!));
}

/** Step 1 for one part: duplicates within the part, ownership (`forbidden`) and unknown runs. */
async function admit(
  client: pg.PoolClient,
  part: GroupPart,
  stored: ReadonlyMap<string, StoredRun>,
): Promise<PartState> {
  const { principal, frames } = part;
  const state: PartState = {
    part,
    outcomes: new Map(),
    accepted: [],
    stored,
    started: new Map(),
    lostRace: new Map(),
    released: [],
  };
  const denied = await loadOwnershipCheck(client, principal, frames, stored);
  const startedInBatch = new Set<string>();
  const seenIds = new Set<string>();
  frames.forEach((f, i) => {
    if (seenIds.has(f.id)) {
      state.outcomes.set(i, { id: f.id, ok: true, duplicate: true });
      return;
    }
    seenIds.add(f.id);
    const forbidden = denied(f);
    if (forbidden) {
      state.outcomes.set(i, { id: f.id, ok: false, code: "forbidden", message: forbidden });
      return;
    }
    if (f.type === "run.start") startedInBatch.add(f.run);
    const runKey = requiredRunKey(f);
    if (runKey !== undefined && !stored.has(runKey) && !startedInBatch.has(runKey)) {
      state.outcomes.set(i, {
        id: f.id,
        ok: false,
        code: "unknown_run",
        message: `run '${runKey}' has not been started (send run.start first)`,
      });
      return;
    }
    state.accepted.push(i);
  });
  return state;
}

/**
 * Writes that many frames of a group share, buffered and written with one statement each:
 * benchmark points and eval results of consecutive frames (any other frame flushes them first,
 * so effects keep the order the worker sent them in); metric points of the whole group at its
 * end (the metric writer takes two or three round trips for all runs; no other frame type reads them, so only
 * the order of their overflow alert events against other events can differ); heartbeats,
 * progress samples and events at the end (no other frame type reads what they write; events keep
 * their order); then the touched runs and the invariant checks of runs with new progress.
 */
class GroupWrites {
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

/** Step 3 for one part: applies its claimed frames (`toApply`, indexes in order) as its principal. */
async function applyPart(writes: GroupWrites, s: PartState, toApply: number[]): Promise<void> {
  const { client, at, topics } = writes;
  const { principal, frames } = s.part;
  const { lostRace } = s;
  const runOf = (key: string) => s.started.get(key) ?? s.stored.get(key);
  const refuse = (i: number, run: StoredRun) => {
    const f = frames[i]!;
    s.outcomes.set(i, {
      id: f.id,
      ok: false,
      code: "forbidden",
      message: notOwnerMessage("run", run.key, run.owner, principal),
    });
    s.released.push(f.id);
  };

  for (const i of toApply) {
    const f = frames[i]!;
    const lost = f.type === "run.start" || refersToRun(f) ? lostRace.get(f.run) : undefined;
    if (lost) {
      refuse(i, lost);
      continue;
    }
    await writes.before(f.type);
    const run = refersToRun(f) ? runOf(f.run) : undefined;
    switch (f.type) {
      case "hello":
        break;
      case "heartbeat":
        writes.heartbeat({ hostId: principal.hostId, frame: f });
        if (f.sessions?.length) {
          const touched = await noteSessionSignal(
            client,
            principal.hostId,
            f.sessions,
            f.ts !== undefined ? new Date(f.ts) : at,
          );
          for (const id of touched) topics.add(`session:${id}`);
          if (touched.length) topics.add("sessions");
        }
        break;
      case "run.start": {
        const started = await upsertRun(client, principal, f, at);
        if (!started) {
          const owned = (await loadRuns(client, [f.run])).get(f.run)!;
          lostRace.set(f.run, owned);
          refuse(i, owned);
          continue;
        }
        s.started.set(f.run, started);
        topics.add("runs").add(`run:${started.id}`);
        if (started.sessionId) topics.add(`session:${started.sessionId}`);
        break;
      }
      case "run.benchmark":
        for (const point of f.points) writes.point(run!.id, point);
        break;
      case "run.metrics":
        writes.metricFrame({ runId: run!.id, points: f.points });
        break;
      case "run.progress":
        writes.progressFrame({ runId: run!.id, frame: f });
        break;
      case "run.artifact":
        await upsertArtifact(client, run!.id, f, at);
        // A checkpoint artifact can attribute already scored evals to its training run (/evals, lineage).
        if (f.kind === "checkpoint") topics.add("evals");
        break;
      case "run.event":
        writes.event({ runId: run!.id, event: f });
        break;
      case "run.output":
        await appendOutput(client, run!.id, f.lines, at);
        break;
      case "run.end":
        await endRun(client, run!.id, f, at);
        topics.add("runs");
        break;
      case "run.eval":
        for (const result of f.results) writes.evalResult(run!.id, result);
        topics.add("evals");
        break;
      case "baseline.upsert":
        await upsertBaseline(client, f, at, principal.hostId, principal.shared);
        topics.add("baselines");
        break;
      case "session.todos": {
        const sessionId = await applyTodos(client, principal, f);
        topics.add("sessions").add(`session:${sessionId}`);
        break;
      }
      case "session.activity": {
        const sessionId = await applyActivity(client, principal, f);
        topics.add("sessions").add(`session:${sessionId}`);
        // The agent ended: nobody waits for its proposed plans any more.
        if (f.state === "ended" && (await closeSessionPlans(client, sessionId, at)))
          topics.add("plans").add("inbox");
        if (f.state === "ended" && (await closeSessionInboxItems(client, sessionId, at)))
          topics.add("inbox");
        // Working again: a "waiting for your input" notice is over.
        if (f.state === "working" && (await closeSessionNotices(client, sessionId, at)))
          topics.add("inbox");
        // A tool that edits or runs while a plan of the session waits: worked without approval.
        if (f.tool !== undefined) {
          const flagged = await recordUnapprovedWork(
            client,
            sessionId,
            f.tool,
            f.detail ?? null,
            new Date(f.ts),
          );
          // "inbox": the audit (inbox history) lists the flag.
          for (const planId of flagged) topics.add("plans").add("inbox").add(`plan:${planId}`);
        }
        break;
      }
      case "plan.propose": {
        // A decided plan is immutable: proposing under its key again changes nothing, and the
        // proposer's connection is sent the decision (see IngestConnection).
        // Linking to another host's run is allowed, also to one that won a create race.
        const linked = f.run !== undefined ? (runOf(f.run) ?? lostRace.get(f.run))!.id : null;
        const result = await proposePlan(client, principal, f, linked, at);
        if (result.ok) topics.add("plans").add("inbox").add(`plan:${result.planId}`);
        break;
      }
      default:
        f satisfies never;
    }
    if (run) {
      writes.touched.add(run.id);
      topics.add(`run:${run.id}`);
    }
    s.outcomes.set(i, { id: f.id, ok: true, duplicate: false });
  }
}
