import { applyPatch, type JsonPatch } from "@/lib/protocol/live-patch";

/** What merging one server message gave: the topic's new value, or a gap (a resync is needed). */
export type MergeResult = { kind: "data"; data: unknown } | { kind: "gap" } | { kind: "ignored" };

/**
 * The browser's copy of each shared-read topic (`run:<id>`): the value as of the last `snapshot`
 * or `delta` merged and its sequence label. A delta whose `base` is not the label held (a message
 * was missed, or the copy was dropped) is a gap: the caller asks the server for a resync and
 * ignores further deltas of that topic until the snapshot arrives. Pure, no socket.
 */
export class SharedTopics {
  private readonly held = new Map<string, { seq: number; data: unknown }>();
  private readonly waiting = new Set<string>();

  /** A `snapshot`: replaces the copy. */
  snapshot(topic: string, seq: number, data: unknown): MergeResult {
    this.waiting.delete(topic);
    this.held.set(topic, { seq, data });
    return { kind: "data", data };
  }

  /** A `delta` from `base` to `seq`: merged when `base` is the label held, else a gap (reported once per resync). */
  delta(topic: string, base: number, seq: number, patch: unknown): MergeResult {
    if (this.waiting.has(topic)) return { kind: "ignored" };
    const cur = this.held.get(topic);
    if (!cur || cur.seq !== base) {
      this.held.delete(topic);
      this.waiting.add(topic);
      return { kind: "gap" };
    }
    const data = applyPatch(cur.data, patch as JsonPatch);
    this.held.set(topic, { seq, data });
    return { kind: "data", data };
  }

  /** Forgets every copy (after a reconnect or while the tab is hidden: snapshots follow the next subscribe). */
  clear(): void {
    this.held.clear();
    this.waiting.clear();
  }

  /** Forgets topics not in `keep` (unsubscribed). */
  retain(keep: ReadonlySet<string>): void {
    for (const t of [...this.held.keys()]) if (!keep.has(t)) this.held.delete(t);
    for (const t of [...this.waiting]) if (!keep.has(t)) this.waiting.delete(t);
  }
}
