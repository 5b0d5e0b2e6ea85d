import type pg from "pg";
import type { z } from "zod";
import type { BenchmarkPoint, ClientFrame, ErrorCode, evalResult } from "@/lib/protocol";
import { publisherFor } from "@/lib/server/live/coalescing-publisher";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";
import { isDatabaseOutage } from "@/lib/server/database/outage";
import { upsertBenchmarkPoints } from "./writers/benchmark-points";
import { upsertMetricPoints, type MetricFrame } from "./writers/metrics";
import { applyProgress, checkRunInvariants, type WorkerCache } from "./writers/progress";
import { loadOwnershipCheck } from "./ownership";
import { preparedStatements } from "./prepared";
import { claimFrameIds, endRun, insertEvent, loadRuns, recordHeartbeat, releaseFrameIds, touchRun, upsertArtifact, upsertRun, type RunRef, type StoredRun } from "./writers/runs";
import { notOwnerMessage } from "@/lib/server/auth/ownership";
import { upsertBaseline, upsertEvalResults } from "./writers/evals";
import { applyActivity, applyTodos, proposePlan } from "./writers/sessions";

/**
 * Applies validated frames to PostgreSQL in one transaction per batch.
 *
 * Delivery is at-least-once: workers resend unacknowledged frames after reconnecting. We make
 * it effectively exactly-once by recording every committed frame id per host in
 * "IngestedFrame" *in the same transaction* as its effects. The id rows are inserted first with
 * ON CONFLICT DO NOTHING: if another connection is committing the same id concurrently, our
 * insert waits for it and then reports the id as taken, so the frame is applied exactly once.
 *
 * Benchmark points from consecutive frames are written with one multi-row
 * `INSERT ... SELECT FROM unnest(...) ON CONFLICT DO UPDATE` (latest frame wins per point key).
 * Change notifications go out right after COMMIT, coalesced across batches and sockets
 * (CoalescingPublisher): browsers hear about a change only once it is committed, and ingest
 * commits do not queue behind PostgreSQL's notify lock.
 */

/** Result of one frame: committed (possibly earlier: `duplicate`) or rejected with a code. */
export type FrameOutcome =
  | { id: string; ok: true; duplicate: boolean }
  | { id: string; ok: false; code: ErrorCode; message: string };

/** Clock, injectable for tests. */
export type Now = () => Date;

/**
 * Applies `frames` (already validated, in arrival order) for `principal` and returns one outcome
 * per frame in the same order. A frame that cannot apply (e.g. a point for an unknown run) is
 * rejected alone. When the batch fails for any reason other than a database outage, frames are
 * retried one by one, so a poison frame is rejected alone (`invalid_frame` when Postgres refused
 * its data, SQLSTATE class 22/23; `internal_error` for anything else, e.g. a program limit or a
 * bug) and never costs the good ones beside it.
 * @throws the driver's error when the database is unreachable ({@link isDatabaseOutage}):
 *   nothing is committed then, and the caller must not ack or reject anything.
 */
export async function applyFrames(pool: pg.Pool, principal: TokenPrincipal, frames: ClientFrame[], now: Now = () => new Date()): Promise<FrameOutcome[]> {
  if (frames.length === 0) return [];
  try {
    return await applyWithRetry(pool, principal, frames, now);
  } catch (err) {
    if (isDatabaseOutage(err)) throw err;
    if (frames.length === 1) return [rejectionFor(frames[0]!, err)];
    const outcomes: FrameOutcome[] = [];
    for (const frame of frames) outcomes.push(...(await applyFrames(pool, principal, [frame], now)));
    return outcomes;
  }
}

/** The final answer for a frame that failed alone with `err` (not an outage). */
function rejectionFor(frame: ClientFrame, err: unknown): FrameOutcome {
  const text = err instanceof Error ? err.message : String(err);
  if (isDataError(err)) return { id: frame.id, ok: false, code: "invalid_frame", message: `the database refused this frame: ${text}` };
  return { id: frame.id, ok: false, code: "internal_error", message: `the server could not apply this frame (not retried): ${text.slice(0, 500)}` };
}

/** Attempts at a batch that hit a deadlock or serialization failure before giving up. */
const CONFLICT_ATTEMPTS = 4;

/**
 * Two sockets writing to the same runs can deadlock (each locks rows the other needs next);
 * Postgres then aborts one transaction (40P01), or a serialization failure (40001) occurs.
 * Nothing of it was committed, so the batch is simply retried after a short random pause.
 */
async function applyWithRetry(pool: pg.Pool, principal: TokenPrincipal, frames: ClientFrame[], now: Now): Promise<FrameOutcome[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await applyBatch(pool, principal, frames, now);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if ((code !== "40P01" && code !== "40001") || attempt >= CONFLICT_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
    }
  }
}

function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

async function applyBatch(pool: pg.Pool, principal: TokenPrincipal, frames: ClientFrame[], now: Now): Promise<FrameOutcome[]> {
  const client = preparedStatements(await pool.connect());
  try {
    await client.query("BEGIN");
    const topics = new Set<string>();
    const outcomes = await applyInTransaction(client, principal, frames, now(), topics);
    await client.query("COMMIT");
    publisherFor(pool).publish(topics);
    return outcomes;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Frame types that refer to a run by its client key. */
const RUN_FRAMES = new Set<ClientFrame["type"]>(["run.benchmark", "run.progress", "run.metrics", "run.artifact", "run.event", "run.end", "run.eval"]);

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

/** Applies `frames` inside the caller's transaction; adds the live topics they changed to `topics` (published after COMMIT). */
async function applyInTransaction(client: pg.PoolClient, principal: TokenPrincipal, frames: ClientFrame[], at: Date, topics: Set<string>): Promise<FrameOutcome[]> {
  const outcomes = new Map<number, FrameOutcome>();

  // 1. Frames that reference runs must name a run that exists or is started earlier in the batch,
  //    and the token must be allowed to change what they target (ownership.ts).
  const referenced = new Set<string>();
  for (const f of frames) {
    const key = f.type === "run.start" ? f.run : requiredRunKey(f);
    if (key !== undefined) referenced.add(key);
  }
  const stored = await loadRuns(client, [...referenced]); // and locks them

  const denied = await loadOwnershipCheck(client, principal, frames, stored);
  const runs: Map<string, RunRef> = stored;
  const startedInBatch = new Set<string>();
  const accepted: number[] = [];
  const seenIds = new Set<string>();
  frames.forEach((f, i) => {
    if (seenIds.has(f.id)) {
      outcomes.set(i, { id: f.id, ok: true, duplicate: true });
      return;
    }
    seenIds.add(f.id);
    const forbidden = denied(f);
    if (forbidden) {
      outcomes.set(i, { id: f.id, ok: false, code: "forbidden", message: forbidden });
      return;
    }
    if (f.type === "run.start") startedInBatch.add(f.run);
    const runKey = requiredRunKey(f);
    if (runKey !== undefined && !runs.has(runKey) && !startedInBatch.has(runKey)) {
      outcomes.set(i, { id: f.id, ok: false, code: "unknown_run", message: `run '${runKey}' has not been started (send run.start first)` });
      return;
    }
    accepted.push(i);
  });

  // The stored runs are locked now (loadRuns, in id order).

  // 2. Claim frame ids; those already claimed were committed before: ack without applying.
  const claimed = await claimFrameIds(client, principal.hostId, accepted.map((i) => frames[i]!.id));
  const toApply: number[] = [];
  for (const i of accepted) {
    const f = frames[i]!;
    if (claimed.has(f.id)) toApply.push(i);
    else outcomes.set(i, { id: f.id, ok: true, duplicate: true });
  }

  // 3. Apply in order. Benchmark points and eval results of consecutive frames are buffered and
  //    written as one multi-row upsert; any other frame flushes those buffers first, so effects
  //    keep the order the worker sent them in. Metric points of the whole batch are written
  //    together at its end (three or more round trips per flush, the most expensive step of a
  //    mixed batch; no other frame type reads them, so only the order of their overflow alert
  //    events against the batch's other events differs).
  const touched = new Set<number>();
  const progressRuns = new Set<number>();
  const workers: WorkerCache = new Map();
  let points: Array<{ runId: number; point: BenchmarkPoint }> = [];
  let metrics: MetricFrame[] = [];
  let evals: Array<{ runId: number; result: z.infer<typeof evalResult> }> = [];
  const flush = async () => {
    if (points.length) await upsertBenchmarkPoints(client, points, at);
    points = [];
    if (metrics.length) {
      for (const alert of await upsertMetricPoints(client, metrics, at)) {
        await insertEvent(client, alert.runId, alert, at);
        topics.add("events");
      }
    }
    metrics = [];
    if (evals.length) await upsertEvalResults(client, evals, at);
    evals = [];
  };

  // Run keys another host created after the ownership check above (a create race, see upsertRun):
  // this batch's frames for them are refused, and their frame ids released.
  const lostRace = new Map<string, StoredRun>();
  const released: string[] = [];
  const refuse = (i: number, run: StoredRun) => {
    const f = frames[i]!;
    outcomes.set(i, { id: f.id, ok: false, code: "forbidden", message: notOwnerMessage("run", run.key, run.owner, principal) });
    released.push(f.id);
  };

  for (const i of toApply) {
    const f = frames[i]!;
    const lost = f.type === "run.start" || refersToRun(f) ? lostRace.get(f.run) : undefined;
    if (lost) {
      refuse(i, lost);
      continue;
    }
    if (f.type !== "run.benchmark") {
      if (points.length) await flush();
    }
    if (f.type !== "run.eval") {
      if (evals.length) await flush();
    }
    const run = refersToRun(f) ? runs.get(f.run) : undefined;
    switch (f.type) {
      case "hello":
        break;
      case "heartbeat":
        await recordHeartbeat(client, principal.hostId, f, at);
        topics.add("hosts");
        break;
      case "run.start": {
        const started = await upsertRun(client, principal, f, at);
        if (!started) {
          const owned = (await loadRuns(client, [f.run])).get(f.run)!;
          lostRace.set(f.run, owned);
          refuse(i, owned);
          continue;
        }
        runs.set(f.run, started);
        topics.add("runs").add(`run:${started.id}`);
        if (started.sessionId) topics.add(`session:${started.sessionId}`);
        break;
      }
      case "run.benchmark":
        for (const point of f.points) points.push({ runId: run!.id, point });
        break;
      case "run.metrics":
        metrics.push({ runId: run!.id, points: f.points });
        break;
      case "run.progress":
        await applyProgress(client, run!.id, f, at, workers);
        progressRuns.add(run!.id);
        topics.add("runs");
        break;
      case "run.artifact":
        await upsertArtifact(client, run!.id, f, at);
        // A checkpoint artifact can attribute already scored evals to its training run (/evals, lineage).
        if (f.kind === "checkpoint") topics.add("evals");
        break;
      case "run.event":
        await insertEvent(client, run!.id, f, at);
        topics.add("events");
        break;
      case "run.end":
        await endRun(client, run!.id, f, at);
        topics.add("runs");
        break;
      case "run.eval":
        for (const result of f.results) evals.push({ runId: run!.id, result });
        topics.add("evals");
        break;
      case "baseline.upsert":
        await upsertBaseline(client, f, at);
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
        break;
      }
      case "plan.propose": {
        // A decided plan is immutable: proposing under its key again changes nothing, and the
        // proposer's connection is sent the decision (see IngestConnection).
        // Linking to another host's run is allowed, also to one that won a create race.
        const linked = f.run !== undefined ? (runs.get(f.run) ?? lostRace.get(f.run))!.id : null;
        const result = await proposePlan(client, principal, f, linked, at);
        if (result.ok) topics.add("plans").add(`plan:${result.planId}`);
        break;
      }
      default:
        f satisfies never;
    }
    if (run) {
      touched.add(run.id);
      topics.add(`run:${run.id}`);
    }
    outcomes.set(i, { id: f.id, ok: true, duplicate: false });
  }
  await flush();
  await releaseFrameIds(client, principal.hostId, released);

  // Lock run rows in one global order (by id) to make deadlocks between batches rare.
  const byId = (a: number, b: number) => a - b;
  for (const runId of [...touched].sort(byId)) await touchRun(client, runId, at);
  for (const runId of [...progressRuns].sort(byId)) if (await checkRunInvariants(client, runId, at)) topics.add("events");
  if (touched.size) topics.add("runs");
  return frames.map((_, i) => outcomes.get(i)!);
}
