import { stringifyApiJson } from "@/lib/protocol/api-json";
import type { LiveServerMessage } from "@/lib/protocol/live";
import { diffJson } from "@/lib/protocol/live-patch";

/**
 * One read of a shared-read topic: its value in wire form (JSON-safe) and the LiveTopic.seq read
 * before it; `memo`, the reader's own note, is handed back with the next read (e.g. when it last
 * read in full).
 */
export interface TopicRead {
  seq: number;
  data: unknown;
  memo?: unknown;
}

/** Where a topic's messages go (one per browser socket); identity matters (subscribe/unsubscribe). */
export interface TopicSink {
  send(text: string): void;
}

/** Injected collaborators of {@link SharedReads}. */
export interface SharedReadsDeps {
  /**
   * Reads the topic's current value; `previous` is what the last read gave (its `data` as sent
   * since, and its `memo`), null before the first. May throw; the read is then retried after `retryMs`.
   */
  read(topic: string, previous: TopicRead | null): Promise<TopicRead>;
  /**
   * Coalescing window (ms): at most one read per topic per window, however many changes arrive.
   * A topic whose last read took longer than half the window waits twice that read's time instead
   * (a read budget: one costly topic keeps the server busy at most about half the time).
   */
  windowMs: number;
  retryMs: number;
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  onError(topic: string, err: unknown): void;
  /** Called after every read with its server time (ms) and how many sockets it was sent to (telemetry, bench). */
  onRead?(topic: string, readMs: number, sinks: number): void;
}

interface TopicState {
  sinks: Set<TopicSink>;
  /** Sinks that still need a snapshot (just subscribed, or asked for a resync before the first read). */
  needSnapshot: Set<TopicSink>;
  /** Last value read and the seq it is labelled with (null: not read yet). */
  seq: number | null;
  data: unknown;
  /** The last read's `memo`. */
  memo: unknown;
  timer: unknown;
  reading: boolean;
  /** A change arrived since the last read started. */
  dirty: boolean;
  lastReadAt: number;
  /** How long the last read took (ms). */
  lastReadMs: number;
}

/**
 * Shared live reads: a topic's value is read once per coalescing window, whatever the number of
 * subscribed sockets, and every subscriber is sent the same serialised message: a `snapshot` when
 * it subscribes (or asks for a resync), then a `delta` from the previous read to the new one.
 *
 * Sequence labels: a read takes LiveTopic.seq *before* the value, so the value reflects at least
 * that seq. A delta goes from `base` (the label of the previous read) to `seq`; reads that change
 * nothing keep the old label, so the chain the browsers check (`base` = what they hold) never
 * breaks. Notices that carry a seq already covered by the last read are ignored. State is kept
 * only while a topic has subscribers; the last unsubscribe drops it.
 */
export class SharedReads {
  private readonly topics = new Map<string, TopicState>();

  constructor(private readonly deps: SharedReadsDeps) {}

  /** Number of topics currently read (with at least one subscriber). */
  get size(): number {
    return this.topics.size;
  }

  /** Subscribes a sink; it gets a snapshot now (if the topic was read already) or after the first read. */
  subscribe(topic: string, sink: TopicSink): void {
    let st = this.topics.get(topic);
    if (!st) {
      st = {
        sinks: new Set(),
        needSnapshot: new Set(),
        seq: null,
        data: null,
        memo: undefined,
        timer: null,
        reading: false,
        dirty: true,
        lastReadAt: 0,
        lastReadMs: 0,
      };
      this.topics.set(topic, st);
    }
    st.sinks.add(sink);
    this.resync(topic, sink);
  }

  /** Sends `sink` a fresh snapshot of `topic` (the last read, or the first once it completes). No-op when not subscribed. */
  resync(topic: string, sink: TopicSink): void {
    const st = this.topics.get(topic);
    if (!st || !st.sinks.has(sink)) return;
    if (st.seq !== null) sink.send(snapshotText(topic, st.seq, st.data, this.deps.now()));
    else {
      st.needSnapshot.add(sink);
      this.schedule(topic, st);
    }
  }

  /** Removes a sink; the topic's state goes with its last sink. */
  unsubscribe(topic: string, sink: TopicSink): void {
    const st = this.topics.get(topic);
    if (!st) return;
    st.sinks.delete(sink);
    st.needSnapshot.delete(sink);
    if (st.sinks.size > 0) return;
    if (st.timer !== null) this.deps.clearTimer(st.timer);
    this.topics.delete(topic);
  }

  /** A committed change to `topic` (seq from the NOTIFY payload, when it has one). */
  changed(topic: string, seq?: number): void {
    const st = this.topics.get(topic);
    if (!st) return;
    if (seq !== undefined && st.seq !== null && seq <= st.seq && !st.reading) return;
    st.dirty = true;
    this.schedule(topic, st);
  }

  /** Re-reads every topic (after the LISTEN connection was re-established: notices may have been missed). */
  changedAll(): void {
    for (const topic of this.topics.keys()) this.changed(topic);
  }

  /**
   * Re-reads topics not read for `ageMs`: rates, ETA and "stale" derive from the clock, so a quiet
   * run is refreshed once for all its viewers instead of each browser polling.
   */
  refreshOlderThan(ageMs: number): void {
    const now = this.deps.now();
    for (const [topic, st] of this.topics) if (now - st.lastReadAt >= ageMs) this.changed(topic);
  }

  /** Cancels every timer and forgets every topic (shutdown). */
  close(): void {
    for (const st of this.topics.values()) if (st.timer !== null) this.deps.clearTimer(st.timer);
    this.topics.clear();
  }

  private schedule(topic: string, st: TopicState, minWaitMs = 0): void {
    // One read at a time per topic; a change during a read triggers another one after it.
    if (st.reading || st.timer !== null) return;
    const gap = Math.max(this.deps.windowMs, 2 * st.lastReadMs);
    const wait = Math.max(minWaitMs, st.lastReadAt + gap - this.deps.now());
    const fire = () => {
      st.timer = null;
      void this.readNow(topic, st);
    };
    if (wait <= 0) fire();
    else st.timer = this.deps.setTimer(fire, wait);
  }

  private async readNow(topic: string, st: TopicState): Promise<void> {
    st.reading = true;
    st.dirty = false;
    const startedAt = this.deps.now();
    st.lastReadAt = startedAt;
    let read: TopicRead;
    try {
      const previous = st.seq === null ? null : { seq: st.seq, data: st.data, memo: st.memo };
      read = await this.deps.read(topic, previous);
    } catch (err) {
      st.reading = false;
      if (this.topics.get(topic) !== st) return;
      this.deps.onError(topic, err);
      st.dirty = true;
      this.schedule(topic, st, this.deps.retryMs);
      return;
    }
    st.reading = false;
    // Everyone left while reading: the state is gone, nothing to send.
    if (this.topics.get(topic) !== st) return;
    const at = this.deps.now();
    st.lastReadMs = at - startedAt;
    st.memo = read.memo;
    if (st.seq === null) {
      st.seq = read.seq;
      st.data = read.data;
    } else {
      const patch = diffJson(st.data, read.data);
      if (patch !== undefined) {
        const base = st.seq;
        st.seq = Math.max(read.seq, base);
        st.data = read.data;
        const msg: LiveServerMessage = { type: "delta", topic, base, seq: st.seq, patch, at };
        const text = stringifyApiJson(msg);
        for (const sink of st.sinks) if (!st.needSnapshot.has(sink)) sink.send(text);
      }
    }
    if (st.needSnapshot.size > 0) {
      const text = snapshotText(topic, st.seq, st.data, at);
      for (const sink of st.needSnapshot) sink.send(text);
      st.needSnapshot.clear();
    }
    this.deps.onRead?.(topic, at - startedAt, st.sinks.size);
    if (st.dirty) this.schedule(topic, st);
  }
}

function snapshotText(topic: string, seq: number, data: unknown, at: number): string {
  const msg: LiveServerMessage = { type: "snapshot", topic, seq, data, at };
  return stringifyApiJson(msg);
}
