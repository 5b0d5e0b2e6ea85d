import { performance } from "node:perf_hooks";
import type pg from "pg";

import type { ClientFrame } from "@/lib/protocol";
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
  now?: Now;
}

const DEFAULTS: GroupCommitOptions = {
  maxGroups: 6,
  parallelMinBytes: 256 * 1024,
  maxFrames: 2_000,
  maxBytes: 8 * 1024 * 1024,
  minGroupIntervalMs: 20,
  lingerFrames: 500,
};

interface Pending {
  principal: TokenPrincipal;
  frames: ClientFrame[];
  bytes: number;
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
 * transaction per frame); further groups run beside it only when enough bytes wait (`parallelMinBytes`). A
 * group never holds two parts of one host (the second waits for the next
 * group, keeping a host's batches in submission order and its frame-id claims unambiguous).
 * Each submitter's promise settles after COMMIT with its own outcomes; a non-outage failure is
 * isolated inside applyGroup (halves, then per part, then per frame), so a poison frame never
 * costs another socket's frames. A database outage rejects every part of the group: nothing of
 * it was committed or acked.
 */
export class GroupCommitter {
  private pending: Pending[] = [];
  private pendingBytes = 0;
  private pendingFrames = 0;
  private inFlight = 0;
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
  submit(principal: TokenPrincipal, frames: ClientFrame[], bytes = 0): Promise<FrameOutcome[]> {
    if (frames.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.pending.push({ principal, frames, bytes, resolve, reject });
      this.pendingBytes += bytes;
      this.pendingFrames += frames.length;
      this.pump();
    });
  }

  /**
   * Starts groups while there is work and room: one whenever none is in flight (after the
   * minimum interval since the last start, unless enough frames wait), more only for enough bytes.
   */
  private pump(): void {
    while (
      this.pending.length > 0 &&
      (this.inFlight === 0 ||
        (this.inFlight < this.opts.maxGroups && this.pendingBytes >= this.opts.parallelMinBytes))
    ) {
      if (this.inFlight === 0 && this.pendingFrames < this.opts.lingerFrames) {
        const waitMs = this.lastStartMs + this.opts.minGroupIntervalMs - performance.now();
        if (waitMs > 0) {
          this.lingerTimer ??= setTimeout(() => {
            this.lingerTimer = null;
            this.pump();
          }, waitMs);
          return;
        }
      }
      if (this.lingerTimer) clearTimeout(this.lingerTimer);
      this.lingerTimer = null;
      this.lastStartMs = performance.now();
      const group = this.takeGroup();
      this.inFlight++;
      void this.commit(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** Takes pending parts in order up to the group's budget, at most one per host. */
  private takeGroup(): Pending[] {
    const group: Pending[] = [];
    // Hosts with a part in the group, or with one left for later (their later parts wait too).
    const hosts = new Set<number>();
    const rest: Pending[] = [];
    let frames = 0;
    let bytes = 0;
    for (const p of this.pending) {
      const fits =
        group.length === 0 ||
        (frames + p.frames.length <= this.opts.maxFrames && bytes + p.bytes <= this.opts.maxBytes);
      if (fits && !hosts.has(p.principal.hostId)) {
        group.push(p);
        hosts.add(p.principal.hostId);
        frames += p.frames.length;
        bytes += p.bytes;
      } else {
        rest.push(p);
        hosts.add(p.principal.hostId);
      }
    }
    this.pending = rest;
    this.pendingBytes -= bytes;
    this.pendingFrames -= frames;
    return group;
  }

  private async commit(group: Pending[]): Promise<void> {
    try {
      const outcomes = await applyGroup(this.pool, group, this.opts.now);
      group.forEach((p, i) => p.resolve(outcomes[i]!));
    } catch (err) {
      for (const p of group) p.reject(err);
    }
  }
}

const committers = new WeakMap<pg.Pool, GroupCommitter>();

/** The one group committer of `pool` (made on first use with the default limits). */
export function groupCommitterFor(pool: pg.Pool): GroupCommitter {
  let c = committers.get(pool);
  if (!c) committers.set(pool, (c = new GroupCommitter(pool)));
  return c;
}
