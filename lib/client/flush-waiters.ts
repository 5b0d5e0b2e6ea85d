import type { Clock } from "./clock";
import { FlushTimeoutError } from "./socket-types";

/**
 * The `flush()` callers of a PitwallSocket waiting for their frames to settle (lib/client/socket.ts
 * owns the frames; this keeps the waiting, the timeouts and the settling in order).
 */

interface FlushWaiter {
  uptoSeq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** The socket's unsettled frames by id, in the order they were queued (ascending `seq`, as a Map keeps insertion order). */
export type UnsettledFrames = ReadonlyMap<string, { seq: number }>;

/** True when no frame with sequence number ≤ `seq` is still unsettled. */
export function settledUpTo(unsettled: UnsettledFrames, seq: number): boolean {
  const first = unsettled.values().next();
  return first.done === true || first.value.seq > seq;
}

/** How many frames with sequence number ≤ `seq` are still unsettled. */
export function pendingUpTo(unsettled: UnsettledFrames, seq: number): number {
  let n = 0;
  for (const e of unsettled.values()) {
    if (e.seq > seq) break;
    n++;
  }
  return n;
}

/** Wraps resolve/reject so that settling also aborts `timeout` (its timer must not hold the process). */
function settleOnce(
  resolve: () => void,
  reject: (err: Error) => void,
  timeout: AbortController,
): Pick<FlushWaiter, "resolve" | "reject"> {
  return {
    resolve: () => (timeout.abort(), resolve()),
    reject: (err) => (timeout.abort(), reject(err)),
  };
}

/** Pending `flush()` promises, each waiting for the frames queued before it (sequence ≤ `uptoSeq`). */
export class FlushWaiters {
  private waiters: FlushWaiter[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly unsettled: UnsettledFrames,
  ) {}

  /**
   * A promise that resolves once every frame up to `uptoSeq` is settled.
   * @throws FlushTimeoutError (rejects) after `timeoutMs` (no limit when undefined).
   */
  wait(uptoSeq: number, timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timeout = new AbortController();
      const waiter: FlushWaiter = { uptoSeq, ...settleOnce(resolve, reject, timeout) };
      this.waiters.push(waiter);
      if (timeoutMs !== undefined) {
        void this.clock.sleep(timeoutMs, timeout.signal).then(() => {
          const i = this.waiters.indexOf(waiter);
          if (i < 0) return;
          this.waiters.splice(i, 1);
          waiter.reject(new FlushTimeoutError(pendingUpTo(this.unsettled, uptoSeq), timeoutMs));
        });
      }
    });
  }

  /** Resolves the waiters whose frames are all settled now. */
  resolveSettled(): void {
    if (this.waiters.length === 0) return;
    const still: FlushWaiter[] = [];
    for (const w of this.waiters) {
      if (settledUpTo(this.unsettled, w.uptoSeq)) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /** Rejects every waiter with `err` (the client gave up or closed). */
  failAll(err: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(err);
  }
}
