import { logger as defaultLogger, type Logger } from "@/lib/server/logger";

import { publishTopics, type Queryable } from "./publish";

/**
 * Publishes changed live topics *after* the commits that changed them, coalescing the topics of
 * many commits into one `pitwall_publish` call: while one call is in flight, topics from further
 * commits accumulate (a set, so `runs` is announced once however many batches touched it) and go
 * out in the next call, without timers. The ingest path uses it instead of publishing inside each
 * transaction, because a transaction that NOTIFYs takes PostgreSQL's global notify lock at COMMIT
 * and holds it through its WAL flush: with one per ingest batch, every commit of every socket was
 * serialised behind it (the soak's "Lock:object" waits; docs/benchmarks.md "Soak").
 *
 * Order stays safe: a topic is announced only after its change is visible, and a `run:<id>` seq
 * bump still precedes its NOTIFY in one statement (readers take the seq before the value, so a
 * value never claims less than it holds). A failed call (database gone) is logged and its topics
 * dropped; live clients resynchronise on their next snapshot.
 */
export class CoalescingPublisher {
  private pending = new Set<string>();
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly log: Pick<Logger, "warn"> = defaultLogger,
  ) {}

  /** Queues `topics` for the next call; returns at once. */
  publish(topics: Iterable<string>): void {
    for (const t of topics) this.pending.add(t);
    if (this.pending.size && !this.running)
      this.running = this.loop().finally(() => (this.running = null));
  }

  /** Resolves once everything queued so far has been published (or dropped after an error). */
  async flushed(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    while (this.pending.size) {
      const topics = this.pending;
      this.pending = new Set();
      try {
        await publishTopics(this.db, topics);
      } catch (err) {
        this.log.warn(
          { err, topics: topics.size },
          "could not announce changed live topics (dropped)",
        );
      }
    }
  }
}

const publishers = new WeakMap<object, CoalescingPublisher>();

/** The one publisher of `db` (a pg pool), made on first use. */
export function publisherFor(db: Queryable): CoalescingPublisher {
  let p = publishers.get(db);
  if (!p) publishers.set(db, (p = new CoalescingPublisher(db)));
  return p;
}
