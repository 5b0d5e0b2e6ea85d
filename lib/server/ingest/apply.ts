import type pg from "pg";

import type { ClientFrame } from "@/lib/protocol";
import { isDatabaseOutage } from "@/lib/server/database/outage";
import { quietClientErrors } from "@/lib/server/database/transaction";
import type { GroupTrace } from "@/lib/server/ingest-trace";
import { publisherFor } from "@/lib/server/live/coalescing-publisher";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";

import type { FrameOutcome, GroupPart, Now } from "./frame-outcome";
import { applyInTransaction } from "./group-transaction";
import { preparedStatements } from "./prepared";

/**
 * Applies validated frames to PostgreSQL, in transactions that each take a *group* of batches:
 * the batches several sockets (or HTTP requests) submitted meanwhile, each with its own token
 * (group-commit.ts collects them). A group costs a fixed number of round trips whatever the
 * number of sockets in it: runs are looked up and locked, frame ids claimed, heartbeats,
 * progress samples, events, run touches and invariant checks written with one set-based
 * statement each for the whole group (group-transaction.ts); only frames that create or change
 * one thing (run.start, run.end, artifacts, sessions, plans) take their own.
 *
 * Delivery is at-least-once: workers resend unacknowledged frames after reconnecting. We make
 * it effectively exactly-once by recording every committed frame id per host in
 * "IngestedFrame" *in the same transaction* as its effects. The id rows are inserted first with
 * ON CONFLICT DO NOTHING: if another connection is committing the same id concurrently, our
 * insert waits for it and then reports the id as taken, so the frame is applied exactly once.
 *
 * Benchmark points from consecutive frames are written with one multi-row
 * `INSERT ... SELECT FROM unnest(...) ON CONFLICT DO UPDATE` (latest frame wins per point key).
 * Change notifications go out right after COMMIT, coalesced across groups
 * (CoalescingPublisher): browsers hear about a change only once it is committed, and ingest
 * commits do not queue behind PostgreSQL's notify lock.
 */

export type { FrameOutcome, GroupPart, Now } from "./frame-outcome";

/**
 * Applies `frames` (already validated, in arrival order) for `principal` and returns one outcome
 * per frame in the same order: a group of one part (see {@link applyGroup}). A frame that cannot
 * apply (e.g. a point for an unknown run) is rejected alone.
 * @throws the driver's error when the database is unreachable ({@link isDatabaseOutage}):
 *   nothing is committed then, and the caller must not ack or reject anything.
 */
export async function applyFrames(
  pool: pg.Pool,
  principal: TokenPrincipal,
  frames: ClientFrame[],
  now: Now = () => new Date(),
): Promise<FrameOutcome[]> {
  return (await applyGroup(pool, [{ principal, frames }], now))[0]!;
}

/**
 * Applies the parts of a group in one transaction and returns each part's outcomes (one per
 * frame, in order). Parts are applied in order, each with its own principal: ownership checks,
 * frame-id claims and "started in this batch" are per part, so a part sees another part's new run
 * as it would see a run committed by another socket. Parts of one host go in submission order
 * with distinct frame ids (the committer sees to it); a frame id sent in two parts of one host
 * would be applied by the first only.
 * When the group fails for any reason other than a database outage, it is retried in halves,
 * down to single parts and then single frames, so a poison frame is rejected alone
 * (`invalid_frame` when Postgres refused its data, SQLSTATE class 22/23; `internal_error` for
 * anything else, e.g. a program limit or a bug) and never costs the good frames beside it, of its
 * own socket or any other. Each retry is a new transaction; nothing of a failed one is kept.
 * @throws the driver's error when the database is unreachable ({@link isDatabaseOutage}):
 *   the caller must not ack or reject anything of any part (retries that committed before the
 *   outage are deduplicated by frame id when the workers resend).
 */
export async function applyGroup(
  pool: pg.Pool,
  parts: GroupPart[],
  now: Now = () => new Date(),
  trace?: GroupTrace,
): Promise<FrameOutcome[][]> {
  if (parts.every((p) => p.frames.length === 0)) return parts.map(() => []);
  try {
    return await applyWithRetry(pool, parts, now, trace);
  } catch (err) {
    if (isDatabaseOutage(err)) throw err;
    if (parts.length > 1) {
      const mid = Math.ceil(parts.length / 2);
      return [
        ...(await applyGroup(pool, parts.slice(0, mid), now)),
        ...(await applyGroup(pool, parts.slice(mid), now)),
      ];
    }
    const { principal, frames } = parts[0]!;
    if (frames.length === 1) return [[rejectionFor(frames[0]!, err)]];
    const outcomes: FrameOutcome[] = [];
    for (const frame of frames)
      outcomes.push(...(await applyGroup(pool, [{ principal, frames: [frame] }], now))[0]!);
    return [outcomes];
  }
}

/** The final answer for a frame that failed alone with `err` (not an outage). */
function rejectionFor(frame: ClientFrame, err: unknown): FrameOutcome {
  const text = err instanceof Error ? err.message : String(err);
  if (isDataError(err))
    return {
      id: frame.id,
      ok: false,
      code: "invalid_frame",
      message: `the database refused this frame: ${text}`,
    };
  return {
    id: frame.id,
    ok: false,
    code: "internal_error",
    message: `the server could not apply this frame (not retried): ${text.slice(0, 500)}`,
  };
}

/** Attempts at a group that hit a deadlock or serialization failure before giving up. */
const CONFLICT_ATTEMPTS = 4;

/**
 * Two groups writing to the same runs can deadlock (each locks rows the other needs next);
 * Postgres then aborts one transaction (40P01), or a serialization failure (40001) occurs.
 * Nothing of it was committed, so the group is simply retried after a short random pause.
 */
async function applyWithRetry(
  pool: pg.Pool,
  parts: GroupPart[],
  now: Now,
  trace?: GroupTrace,
): Promise<FrameOutcome[][]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await applyBatch(pool, parts, now, trace);
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

async function applyBatch(
  pool: pg.Pool,
  parts: GroupPart[],
  now: Now,
  trace?: GroupTrace,
): Promise<FrameOutcome[][]> {
  const raw = await pool.connect();
  trace?.mark("connect");
  // A database stop between two of the group's queries emits `error` on the checked-out client;
  // unheard, that is an uncaughtException. The next query rejects, which is where we see it.
  const unquiet = quietClientErrors(raw);
  const client = preparedStatements(raw);
  try {
    await client.query("BEGIN");
    trace?.mark("begin");
    const topics = new Set<string>();
    const outcomes = await applyInTransaction(client, parts, now(), topics, trace);
    await client.query("COMMIT");
    trace?.mark("commit");
    publisherFor(pool).publish(topics);
    return outcomes;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    unquiet();
    client.release();
  }
}
