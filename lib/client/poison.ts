/**
 * Spots a poison frame from the client's side: one the server keeps failing on (closing the
 * socket with 1011) instead of acking or rejecting it. Counts consecutive 1011 closes while the
 * same frame was the oldest unacknowledged one and had been sent on that connection; any other
 * way a connection ends (clean close, network drop, refused dial) resets nothing and counts
 * nothing, and an ack of that frame clears the count. A database outage does not trip it in
 * practice: the server refuses the upgrade (503) while the database is down, so no frame is sent.
 */
export class PoisonGuard {
  private suspect: string | null = null;
  private strikes = 0;

  /** @param limit strikes after which a frame is given up on (0: never). */
  constructor(private readonly limit: number) {}

  /**
   * Records how a connection ended. `oldest` is the oldest unacknowledged frame's id when it was
   * written on the connection that just ended (else null). Returns that id when the client
   * should give up on it now (the count then starts afresh), else null.
   */
  onClose(code: number | null, oldest: string | null): string | null {
    if (this.limit <= 0 || code !== 1011 || oldest === null) return null;
    if (oldest !== this.suspect) {
      this.suspect = oldest;
      this.strikes = 0;
    }
    if (++this.strikes < this.limit) return null;
    this.suspect = null;
    this.strikes = 0;
    return oldest;
  }

  /** The consecutive strikes of the current suspect (for the log line). */
  get count(): number {
    return this.strikes;
  }
}
