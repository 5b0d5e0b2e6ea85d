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
  now?: Now;
}

const DEFAULTS: GroupCommitOptions = {
  maxGroups: 6,
  parallelMinBytes: 256 * 1024,
  maxFrames: 2_000,
  maxBytes: 8 * 1024 * 1024,
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
 * No timers: a submission starts a group at once when none is in flight, so a quiet server
 * answers with one batch's latency, and under load the next group fills while the current one
 * commits; further groups run beside it only when enough bytes wait (`parallelMinBytes`). A
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
  private inFlight = 0;
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
      this.pump();
    });
  }

  /** Starts groups while there is work and room: one whenever none is in flight, more only for enough bytes. */
  private pump(): void {
    while (
      this.pending.length > 0 &&
      (this.inFlight === 0 ||
        (this.inFlight < this.opts.maxGroups && this.pendingBytes >= this.opts.parallelMinBytes))
    ) {
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
