/**
 * A token bucket for log lines: at most `burst` lines at once, then one per `intervalMs`. During
 * a database outage every request, pool and loop fails at once (807 lines in 75 s were seen); the
 * warn/error lines then come out at most once a second, and the next line that gets through says
 * how many were dropped (`suppressed`).
 */
export class LogLimiter {
  private tokens: number;
  private last: number;
  private dropped = 0;

  constructor(
    private readonly burst = 3,
    private readonly intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Whether a line may be written now; when it may, also how many were dropped before it (then reset). */
  take(): { ok: true; suppressed: number } | { ok: false } {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + (t - this.last) / this.intervalMs);
    this.last = t;
    if (this.tokens < 1) {
      this.dropped++;
      return { ok: false };
    }
    this.tokens -= 1;
    const suppressed = this.dropped;
    this.dropped = 0;
    return { ok: true, suppressed };
  }
}
