/**
 * One costly read model answered once for many readers. The overview page of every open browser
 * refetches on each `runs` notice (at most every 2 s each); 50 viewers then ask ~25 times a second
 * for the same answer, ~50 ms of server and PostgreSQL work each, which saturates a small host.
 * Here a reader that says how old an answer it accepts (`shared`, up to `maxAgeMs`) gets the
 * stored answer or joins the computation under way; a reader that does not (`fresh`: scripts,
 * server rendering, a write's read-back) gets a computation that starts after it asked, as before.
 *
 * What a shared reader gives up is bounded and repaid: an answer is at most `maxAgeMs` old, and
 * when a served answer predates a change (`changed()`, from the live notices) the key is
 * recomputed in the background (at most once per `refreshGapMs`) and, once an answer newer than
 * every such change is stored, `renotice()` is called so the readers refetch it. So a reader that
 * refetched on a notice and got an answer from just before the change still sees the change, one
 * notice later, also when nothing else changes afterwards.
 */

/** Timers and clock of {@link SharedAnswers}, injectable for tests. */
export interface SharedAnswersClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** How {@link SharedAnswers} computes, ages and announces answers. */
export interface SharedAnswersOptions<V> {
  /** Computes the answer for `key` (reading the clock itself). Rejections reach the readers. */
  compute(key: string): Promise<V>;
  /** The oldest answer (ms since its computation started) a shared reader is ever given. */
  maxAgeMs: number;
  /** Background refreshes of one key start at least this many ms after its previous computation. */
  refreshGapMs: number;
  /** An answer newer than every change a served answer lacked is stored: tell the readers. */
  renotice(): void;
  /** At most this many keys are remembered (idle ones are forgotten first). */
  maxKeys: number;
  /** A background refresh failed (the readers are not told; their next request computes). */
  onError(err: unknown): void;
  clock: SharedAnswersClock;
}

/** An answer and how old it is (ms since its computation started) when handed out. */
export interface AgedAnswer<V> {
  value: V;
  ageMs: number;
}

interface Computation<V> {
  startedAt: number;
  promise: Promise<V>;
}

interface Entry<V> {
  stored: { value: V; startedAt: number } | null;
  running: Computation<V> | null;
  /** The latest change (ms) some served answer did not include; null: nothing owed. */
  owedChangeAt: number | null;
  refreshTimer: unknown;
}

/** Answers by key, shared by readers that accept a bounded age (see the module comment). */
export class SharedAnswers<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private changedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: SharedAnswersOptions<V>) {}

  /** Something the answers read was committed (a live notice arrived) just now. */
  changed(): void {
    this.changedAt = this.options.clock.now();
  }

  /**
   * The answer for `key`, younger than `maxAgeMs` (capped at the options' `maxAgeMs`; 0: a new
   * computation): the stored one, the computation under way, or a new computation.
   * @throws whatever `compute` rejects with.
   */
  async shared(key: string, maxAgeMs: number): Promise<AgedAnswer<V>> {
    const now = this.options.clock.now();
    const limit = Math.min(maxAgeMs, this.options.maxAgeMs);
    const entry = this.entry(key);
    const { stored, running } = entry;
    if (running && (!stored || running.startedAt > stored.startedAt)) {
      if (now - running.startedAt < limit) {
        this.owe(key, entry, running.startedAt);
        const value = await running.promise;
        return { value, ageMs: this.options.clock.now() - running.startedAt };
      }
    } else if (stored && now - stored.startedAt < limit) {
      this.owe(key, entry, stored.startedAt);
      return { value: stored.value, ageMs: now - stored.startedAt };
    }
    return this.fresh(key);
  }

  /**
   * A new computation for `key` that starts now (what a reader that accepts no age gets); its
   * answer is stored for shared readers.
   * @throws whatever `compute` rejects with.
   */
  async fresh(key: string): Promise<AgedAnswer<V>> {
    const computation = this.start(key, this.entry(key));
    const value = await computation.promise;
    return { value, ageMs: this.options.clock.now() - computation.startedAt };
  }

  /** Keys remembered now (for tests and telemetry). */
  get size(): number {
    return this.entries.size;
  }

  /** Cancels pending background refreshes (the server is stopping). */
  close(): void {
    for (const entry of this.entries.values())
      if (entry.refreshTimer !== null) this.options.clock.clearTimer(entry.refreshTimer);
    this.entries.clear();
  }

  private entry(key: string): Entry<V> {
    let entry = this.entries.get(key);
    if (entry) {
      // Most recently used last, so the first idle entry is the one to forget.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry;
    }
    if (this.entries.size >= this.options.maxKeys)
      for (const [k, e] of this.entries)
        if (e.running === null && e.refreshTimer === null) {
          this.entries.delete(k);
          break;
        }
    entry = { stored: null, running: null, owedChangeAt: null, refreshTimer: null };
    this.entries.set(key, entry);
    return entry;
  }

  /** A reader is given an answer whose computation started at `startedAt`: owe it any later change. */
  private owe(key: string, entry: Entry<V>, startedAt: number): void {
    if (this.changedAt < startedAt) return;
    entry.owedChangeAt = Math.max(entry.owedChangeAt ?? Number.NEGATIVE_INFINITY, this.changedAt);
    this.scheduleRefresh(key, entry);
  }

  private scheduleRefresh(key: string, entry: Entry<V>): void {
    if (entry.refreshTimer !== null || entry.running !== null) return;
    const { clock, refreshGapMs } = this.options;
    const last = entry.stored?.startedAt ?? Number.NEGATIVE_INFINITY;
    entry.refreshTimer = clock.setTimer(
      () => {
        entry.refreshTimer = null;
        if (entry.running !== null || this.entries.get(key) !== entry) return;
        this.start(key, entry).promise.catch((err: unknown) => this.options.onError(err));
      },
      Math.max(0, last + refreshGapMs - clock.now()),
    );
  }

  private start(key: string, entry: Entry<V>): Computation<V> {
    const startedAt = this.options.clock.now();
    const promise = this.options.compute(key);
    const computation: Computation<V> = { startedAt, promise };
    entry.running = computation;
    promise.then(
      (value) => {
        if (entry.running === computation) entry.running = null;
        if (!entry.stored || entry.stored.startedAt <= startedAt)
          entry.stored = { value, startedAt };
        this.settleOwed(key, entry, startedAt);
      },
      () => {
        if (entry.running === computation) entry.running = null;
        // Nothing new to announce; the readers' next request computes again.
        if (entry.running === null) entry.owedChangeAt = null;
      },
    );
    return computation;
  }

  /** After a computation that started at `startedAt` was stored: announce it, or refresh again. */
  private settleOwed(key: string, entry: Entry<V>, startedAt: number): void {
    if (entry.owedChangeAt === null) return;
    if (startedAt > entry.owedChangeAt) {
      entry.owedChangeAt = null;
      this.options.renotice();
    } else this.scheduleRefresh(key, entry);
  }
}
