import { performance } from "node:perf_hooks";
import type pg from "pg";

import type { ClientFrame } from "@/lib/protocol";
import { GroupTrace, ingestTrace, type BatchTimes } from "@/lib/server/ingest-trace";
import { COPY_MIN_POINTS } from "@/lib/server/metric-store";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";

import { applyGroup, type FrameOutcome, type Now } from "./apply";

/** Limits of one group transaction (see GroupCommitter). */
export interface GroupCommitOptions {
  /**
   * Group transactions in flight at once (each holds one of the pool's 10 connections), when
   * there is enough work waiting for another ({@link GroupCommitOptions.parallelMinBytes}).
   */
  maxGroups: number;
  /**
   * A second (third, …) group starts beside the ones in flight only when at least this many bytes
   * of frame JSON wait; less waits for the next free turn and joins one group. Small frames
   * (heartbeats, progress, a few metric points) are round-trip bound: one group at a time makes
   * them few and large (the soak at 200 workers × 10 frames/s: ack p99 125 ms with one in flight
   * against 449 ms with up to 6, and a third less CPU per frame). Large batches (1,000-point metric
   * frames) are bound by PostgreSQL's work per row and use both cores with several in flight
   * (76.6k against 50.2k points/s). docs/benchmarks.md, "Soak".
   */
  parallelMinBytes: number;
  /** A group stops taking parts once it holds this many frames (one part is always taken whole). */
  maxFrames: number;
  /** …or this many bytes of frame JSON, as the submitters reported them. */
  maxBytes: number;
  /**
   * Under steady traffic a group starts at most this often (ms after the previous group's
   * start), unless {@link GroupCommitOptions.lingerFrames} frames wait already; 0 turns it off.
   * Why: a group's cost is mostly fixed (~8 statements, a WAL flush, ~1-3 ms of CPU between the
   * server and PostgreSQL), and without a pause a fleet's frames (200 sockets, a frame each every
   * ~0.5 s) came in groups of 1-2 frames, each paying it alone (docs/benchmarks.md, "fleet": 1.1
   * frames per transaction at 160 frames/s). A quiet server is not slowed: when the previous
   * group started longer ago than this, the next starts at once, so this adds at most this much
   * to an ack.
   */
  minGroupIntervalMs: number;
  /** A group starts without waiting for the interval once this many frames wait. */
  lingerFrames: number;
  /**
   * A second group of small frames starts beside the one in flight once that one started this
   * long ago (ms) and frames wait; 0 turns it off. Why: one slow group (a COMMIT's WAL flush or
   * a statement stalled 80-170 ms on a loaded machine) held every frame that arrived meanwhile
   * until it ended, and then they paid their own group: in the fleet bench that wait was the
   * largest part of the p99 acks (docs/benchmarks.md, "Issue 22", the ack tail). At most two
   * groups of the lane overlap this way; a steady server whose groups take less than this is
   * not changed.
   */
  overlapAfterMs: number;
  now?: Now;
}

const DEFAULTS: GroupCommitOptions = {
  maxGroups: 6,
  parallelMinBytes: 256 * 1024,
  maxFrames: 2_000,
  maxBytes: 8 * 1024 * 1024,
  minGroupIntervalMs: 20,
  lingerFrames: 500,
  overlapAfterMs: 60,
};

interface Pending {
  principal: TokenPrincipal;
  frames: ClientFrame[];
  bytes: number;
  /** Carries a run's 256+ metric points (see {@link isHeavy}): goes in a heavy group. */
  heavy: boolean;
  /** The batch's timing when the ingest trace is on (trace.ts). */
  times?: BatchTimes;
  resolve: (outcomes: FrameOutcome[]) => void;
  reject: (err: unknown) => void;
}

/**
 * Cross-socket group commit: the batches that sockets (and HTTP requests) submit while earlier
 * groups are being committed are collected and applied together in ONE transaction
 * ({@link applyGroup}), each with its own principal (ownership and frame-id claims stay per
 * token). Why: at 200 sockets × 10 frames/s each socket's batch holds one or two frames, and a
 * transaction per batch paid ~8 sequential round trips and a WAL flush for them; the pool's
 * connections sat "idle in transaction" waiting for the server (docs/benchmarks.md, "Soak").
 *
 * A submission starts a group at once when none is in flight and the last one started more than
 * `minGroupIntervalMs` ago, so a quiet server answers with one batch's latency; under load the
 * next group fills while the current one commits and, when commits are quicker than the
 * interval, until the interval is over (the one timer: steady small traffic otherwise made a
 * transaction per frame); further groups run beside it only when enough bytes wait (`parallelMinBytes`),
 * or, for small frames, once the group in flight has run for `overlapAfterMs` (a stalled COMMIT
 * no longer holds every frame that arrives meanwhile).
 * Parts that carry a run's 256+ metric points go in groups of their own lane (no interval),
 * beside the others: their direct write can take 100+ ms and must not hold up small frames. A
 * light group holds a host's parts in submission order, never two with the same frame id (the
 * second waits for the next group); a heavy group holds one part per host.
 * Each submitter's promise settles after COMMIT with its own outcomes; a non-outage failure is
 * isolated inside applyGroup (halves, then per part, then per frame), so a poison frame never
 * costs another socket's frames. A database outage rejects every part of the group: nothing of
 * it was committed or acked.
 */
export class GroupCommitter {
  private pending: Pending[] = [];
  private inFlight = 0;
  /** Groups in flight per lane (light: the interval applies; heavy: see {@link isHeavy}). */
  private readonly lane = { light: 0, heavy: 0 };
  /** Hosts with a part in flight, per lane: a host's part never runs beside its part of the other lane. */
  private readonly hostsInFlight = {
    light: new Map<number, number>(),
    heavy: new Map<number, number>(),
  };
  /** performance.now() when the last group started (-Infinity: none yet). */
  private lastStartMs = -Infinity;
  private lingerTimer: NodeJS.Timeout | null = null;
  private readonly opts: GroupCommitOptions;

  constructor(
    private readonly pool: pg.Pool,
    opts: Partial<GroupCommitOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /**
   * Applies `frames` (validated, in arrival order) for `principal` in the next group; resolves
   * after its COMMIT with one outcome per frame, in order (the contract of applyFrames).
   * `bytes`: the frames' JSON size, for the group's byte budget and the parallelism rule.
   * @throws the driver's error when the database is unreachable (nothing of the group committed).
   */
  submit(
    principal: TokenPrincipal,
    frames: ClientFrame[],
    bytes = 0,
    times?: BatchTimes,
  ): Promise<FrameOutcome[]> {
    if (frames.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.pending.push({
        principal,
        frames,
        bytes,
        heavy: isHeavy(frames),
        times,
        resolve,
        reject,
      });
      this.pump();
    });
  }

  /**
   * Starts groups while there is work and room, in two lanes: parts that carry a run's 256+
   * metric points (heavy: written directly in the transaction, which can take 100+ ms when they
   * re-send steps already stored) never share a group with the others, so a restarting
   * worker's re-sent 50 steps do not hold up every other socket's frames. Per lane: a group
   * whenever none of the lane is in flight (light ones after the minimum interval since the last
   * start, unless enough frames wait), more only for enough bytes waiting.
   */
  private pump(): void {
    for (;;) {
      const started = this.startLane(true) || this.startLane(false);
      if (!started) return;
    }
  }

  /** Starts one group of the lane when its rule allows; returns whether it did. */
  private startLane(heavy: boolean): boolean {
    if (this.inFlight >= this.opts.maxGroups) return false;
    let bytes = 0;
    let frames = 0;
    for (const p of this.pending)
      if (p.heavy === heavy) {
        bytes += p.bytes;
        frames += p.frames.length;
      }
    if (frames === 0) return false;
    const inLane = heavy ? this.lane.heavy : this.lane.light;
    if (inLane > 0 && bytes < this.opts.parallelMinBytes) {
      // Small frames wait for the group in flight, unless it has run for overlapAfterMs.
      if (heavy || inLane >= 2 || this.opts.overlapAfterMs <= 0) return false;
      const waitMs = this.lastStartMs + this.opts.overlapAfterMs - performance.now();
      if (waitMs > 0) {
        this.lingerTimer ??= setTimeout(() => {
          this.lingerTimer = null;
          this.pump();
        }, waitMs);
        return false;
      }
    }
    if (!heavy && inLane === 0 && frames < this.opts.lingerFrames) {
      const waitMs = this.lastStartMs + this.opts.minGroupIntervalMs - performance.now();
      if (waitMs > 0) {
        this.lingerTimer ??= setTimeout(() => {
          this.lingerTimer = null;
          this.pump();
        }, waitMs);
        return false;
      }
    }
    const group = this.takeGroup(heavy);
    if (group.length === 0) return false; // every part of the lane waits behind its host's earlier part
    if (!heavy) {
      if (this.lingerTimer) clearTimeout(this.lingerTimer);
      this.lingerTimer = null;
      this.lastStartMs = performance.now();
    }
    this.inFlight++;
    if (heavy) this.lane.heavy++;
    else this.lane.light++;
    const busy = heavy ? this.hostsInFlight.heavy : this.hostsInFlight.light;
    for (const p of group) busy.set(p.principal.hostId, (busy.get(p.principal.hostId) ?? 0) + 1);
    let trace: GroupTrace | undefined;
    if (ingestTrace()) {
      trace = new GroupTrace(heavy, group.length, sumFrames(group));
      trace.mark("start");
      for (const p of group) if (p.times) p.times.group = trace;
    }
    void this.commit(group, trace).finally(() => {
      this.inFlight--;
      if (heavy) this.lane.heavy--;
      else this.lane.light--;
      for (const p of group) {
        const n = busy.get(p.principal.hostId)! - 1;
        if (n === 0) busy.delete(p.principal.hostId);
        else busy.set(p.principal.hostId, n);
      }
      this.pump();
    });
    return true;
  }

  /**
   * Takes pending parts of one lane in order up to the group's budget. In the light lane several
   * parts of one host (its sockets, e.g. the 8 ranks of a training job on one machine) go in one
   * group, in submission order, as long as their frame ids differ: a part repeating an id of an
   * earlier part of its host in the group (a worker resending on a new socket what its old one
   * still has in flight) waits for a later group, so the second copy is answered by what the
   * first became, as when the two came apart. A heavy group takes one part per host (a host's
   * other heavy parts start groups beside it: their writes are PostgreSQL-bound and use both
   * cores that way). A host's part also waits while an earlier part of that host waits (of
   * either lane) or while a part of that host is in flight in the other lane, so a host's
   * batches commit in submission order across the lanes.
   */
  private takeGroup(heavy: boolean): Pending[] {
    const group: Pending[] = [];
    // Hosts whose later parts must wait: a part left for later, or one in flight in the other
    // lane. (Within a lane, groups in flight side by side may hold parts of one host: a socket
    // has one batch in flight at a time.)
    const blocked = new Set<number>(
      (heavy ? this.hostsInFlight.light : this.hostsInFlight.heavy).keys(),
    );
    /** Frame ids in the group, per host. */
    const ids = new Map<number, Set<string>>();
    const rest: Pending[] = [];
    let frames = 0;
    let bytes = 0;
    for (const p of this.pending) {
      const host = p.principal.hostId;
      const fits =
        group.length === 0 ||
        (frames + p.frames.length <= this.opts.maxFrames && bytes + p.bytes <= this.opts.maxBytes);
      const taken = ids.get(host);
      if (
        p.heavy === heavy &&
        fits &&
        !blocked.has(host) &&
        (taken === undefined || (!heavy && p.frames.every((f) => !taken.has(f.id))))
      ) {
        group.push(p);
        const set = taken ?? new Set<string>();
        for (const f of p.frames) set.add(f.id);
        ids.set(host, set);
        frames += p.frames.length;
        bytes += p.bytes;
      } else {
        rest.push(p);
        blocked.add(host);
      }
    }
    this.pending = rest;
    return group;
  }

  private async commit(group: Pending[], trace?: GroupTrace): Promise<void> {
    try {
      const outcomes = await applyGroup(this.pool, group, this.opts.now, trace);
      group.forEach((p, i) => p.resolve(outcomes[i]!));
    } catch (err) {
      for (const p of group) p.reject(err);
    }
  }
}

/**
 * A part is heavy when it carries COPY_MIN_POINTS or more metric points of one run: the metric
 * store writes those directly in the ingest transaction (blocks; when they re-send stored steps,
 * blocks exploded into rows and merged, ~100 ms of PostgreSQL time for a fleet worker's 50
 * re-sent 30-key steps under load, docs/benchmarks.md "fleet"), where smaller ones only append a
 * pending row.
 */
function isHeavy(frames: readonly ClientFrame[]): boolean {
  let perRun: Map<string, number> | null = null;
  for (const f of frames) {
    if (f.type !== "run.metrics") continue;
    perRun ??= new Map();
    const n = (perRun.get(f.run) ?? 0) + f.points.length;
    if (n >= COPY_MIN_POINTS) return true;
    perRun.set(f.run, n);
  }
  return false;
}

function sumFrames(group: readonly Pending[]): number {
  let n = 0;
  for (const p of group) n += p.frames.length;
  return n;
}

const committers = new WeakMap<pg.Pool, GroupCommitter>();

/** The one group committer of `pool` (made on first use with the default limits). */
export function groupCommitterFor(pool: pg.Pool): GroupCommitter {
  let c = committers.get(pool);
  if (!c) committers.set(pool, (c = new GroupCommitter(pool)));
  return c;
}
