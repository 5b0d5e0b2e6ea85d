import { describe, expect, it } from "vitest";

import { LiveClient, type LiveClientDeps, type SocketLike } from "./live-client";

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  closed = false;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.closed = true;
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(code?: number) {
    this.readyState = 3;
    this.onclose?.(code === undefined ? {} : { code });
  }
  message(msg: unknown) {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
}

function harness(extra: Partial<LiveClientDeps> = {}) {
  const sockets: FakeSocket[] = [];
  const timers: Array<{ fn: () => void; ms: number; cleared: boolean }> = [];
  const deps: LiveClientDeps = {
    url: () => "ws://test/ws/live",
    createSocket: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
    setTimer: (fn, ms) => {
      const t = { fn, ms, cleared: false };
      timers.push(t);
      return t;
    },
    clearTimer: (h) => {
      (h as { cleared: boolean }).cleared = true;
    },
    random: () => 1,
    minDelayMs: 500,
    maxDelayMs: 4000,
    idleCloseMs: 5000,
  };
  const runTimers = () => {
    const due = timers.splice(0).filter((t) => !t.cleared);
    for (const t of due) t.fn();
    return due.map((t) => t.ms);
  };
  return { client: new LiveClient({ ...deps, ...extra }), sockets, timers, runTimers };
}

function recorder(topics: string[]) {
  const changed: string[] = [];
  let resyncs = 0;
  return {
    sub: { topics, onChanged: (t: string) => changed.push(t), onResync: () => resyncs++ },
    changed,
    resyncs: () => resyncs,
  };
}

describe("LiveClient", () => {
  it("stops reconnecting and reports it when the server ends the session (4401)", () => {
    let ended = 0;
    const { client, sockets, timers } = harness({ onSessionEnded: () => ended++ });
    client.subscribe(recorder(["runs"]).sub);
    sockets[0]!.open();
    sockets[0]!.drop(4401);
    expect(ended).toBe(1);
    expect(client.getStatus()).toBe("idle");
    expect(timers.filter((t) => !t.cleared)).toHaveLength(0);
    expect(sockets).toHaveLength(1);
  });

  it("connects on first subscribe, subscribes to the union of topics and resyncs on open", () => {
    const { client, sockets } = harness();
    const a = recorder(["runs"]);
    const b = recorder(["run:42"]);
    expect(client.getStatus()).toBe("idle");
    client.subscribe(a.sub);
    client.subscribe(b.sub);
    expect(sockets).toHaveLength(1);
    expect(client.getStatus()).toBe("connecting");
    sockets[0]!.open();
    expect(client.getStatus()).toBe("open");
    expect(JSON.parse(sockets[0]!.sent.at(-1)!)).toEqual({
      type: "subscribe",
      topics: ["run:42", "runs"],
    });
    expect([a.resyncs(), b.resyncs()]).toEqual([1, 1]);
  });

  it("routes changed messages to the subscribers of that topic", () => {
    const { client, sockets } = harness();
    const a = recorder(["runs"]);
    const b = recorder(["run:42"]);
    client.subscribe(a.sub);
    client.subscribe(b.sub);
    sockets[0]!.open();
    sockets[0]!.message({ type: "hello", seq: 0 });
    sockets[0]!.message({ type: "changed", topic: "run:42", seq: 1, at: 1 });
    sockets[0]!.message({ type: "changed", topic: "runs", seq: 2, at: 2 });
    sockets[0]!.message("not json at all");
    expect(a.changed).toEqual(["runs"]);
    expect(b.changed).toEqual(["run:42"]);
  });

  it("resyncs everyone when a sequence number is skipped", () => {
    const { client, sockets } = harness();
    const a = recorder(["runs"]);
    client.subscribe(a.sub);
    sockets[0]!.open();
    sockets[0]!.message({ type: "hello", seq: 0 });
    sockets[0]!.message({ type: "changed", topic: "runs", seq: 3, at: 1 });
    expect(a.resyncs()).toBe(2);
  });

  it("reconnects with exponential backoff after a drop and resyncs when back", () => {
    const { client, sockets, runTimers } = harness();
    const a = recorder(["runs"]);
    client.subscribe(a.sub);
    sockets[0]!.open();
    sockets[0]!.drop();
    expect(client.getStatus()).toBe("reconnecting");
    expect(runTimers()).toEqual([500]);
    sockets[1]!.drop();
    expect(runTimers()).toEqual([1000]);
    sockets[2]!.drop();
    expect(runTimers()).toEqual([2000]);
    sockets[3]!.drop();
    expect(runTimers()).toEqual([4000]);
    sockets[4]!.drop();
    expect(runTimers()).toEqual([4000]);
    sockets[5]!.open();
    expect(client.getStatus()).toBe("open");
    expect(a.resyncs()).toBe(2);
    sockets[5]!.drop();
    expect(runTimers()).toEqual([500]);
  });

  it("updates the server subscription and closes the socket a while after the last unsubscribe", () => {
    const { client, sockets, runTimers } = harness();
    const a = recorder(["runs"]);
    const b = recorder(["run:1"]);
    const offA = client.subscribe(a.sub);
    const offB = client.subscribe(b.sub);
    sockets[0]!.open();
    offA();
    expect(JSON.parse(sockets[0]!.sent.at(-1)!)).toEqual({ type: "subscribe", topics: ["run:1"] });
    offB();
    expect(sockets[0]!.closed).toBe(false);
    runTimers();
    expect(sockets[0]!.closed).toBe(true);
    expect(client.getStatus()).toBe("idle");
  });

  it("reuses the open socket when a page re-subscribes within the idle window", () => {
    const { client, sockets, runTimers } = harness();
    const off = client.subscribe(recorder(["runs"]).sub);
    sockets[0]!.open();
    off();
    client.subscribe(recorder(["run:7"]).sub);
    runTimers();
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.closed).toBe(false);
    expect(JSON.parse(sockets[0]!.sent.at(-1)!)).toEqual({ type: "subscribe", topics: ["run:7"] });
  });

  it("notifies status listeners", () => {
    const { client, sockets } = harness();
    const seen: string[] = [];
    client.onStatus(() => seen.push(client.getStatus()));
    client.subscribe(recorder(["runs"]).sub);
    sockets[0]!.open();
    sockets[0]!.drop();
    expect(seen).toEqual(["connecting", "open", "reconnecting"]);
  });

  it("merges a snapshot and its deltas into onData; a delta off the chain asks for a resync and is not merged", () => {
    const { client, sockets } = harness();
    const data: unknown[] = [];
    client.subscribe({
      topics: ["run:7"],
      onChanged: () => undefined,
      onResync: () => undefined,
      onData: (_t, d) => data.push(d),
    });
    const ws = sockets[0]!;
    ws.open();
    ws.message({
      type: "snapshot",
      topic: "run:7",
      seq: 5,
      data: { run: { name: "a", points: [1] } },
      at: 0,
    });
    ws.message({
      type: "delta",
      topic: "run:7",
      base: 5,
      seq: 7,
      patch: { o: { run: { o: { points: { x: 0, l: 1, p: [{ $num: "NaN" }] } } } } },
      at: 0,
    });
    expect(data).toEqual([
      { run: { name: "a", points: [1] } },
      { run: { name: "a", points: [1, NaN] } },
    ]);
    // seq 8 was missed: base 8 is not the 7 held.
    ws.sent.length = 0;
    ws.message({
      type: "delta",
      topic: "run:7",
      base: 8,
      seq: 9,
      patch: { o: { run: { o: { name: { r: "b" } } } } },
      at: 0,
    });
    ws.message({
      type: "delta",
      topic: "run:7",
      base: 9,
      seq: 10,
      patch: { o: { run: { o: { name: { r: "c" } } } } },
      at: 0,
    });
    expect(data).toHaveLength(2);
    expect(ws.sent.map((m) => JSON.parse(m))).toEqual([{ type: "resync", topics: ["run:7"] }]);
    ws.message({
      type: "snapshot",
      topic: "run:7",
      seq: 10,
      data: { run: { name: "c", points: [] } },
      at: 0,
    });
    ws.message({
      type: "delta",
      topic: "run:7",
      base: 10,
      seq: 11,
      patch: { o: { run: { o: { name: { r: "d" } } } } },
      at: 0,
    });
    expect(data.slice(2)).toEqual([
      { run: { name: "c", points: [] } },
      { run: { name: "d", points: [] } },
    ]);
  });

  it("reports shared-topic updates to onChanged for subscribers without onData", () => {
    const { client, sockets } = harness();
    const r = recorder(["run:7"]);
    client.subscribe(r.sub);
    sockets[0]!.open();
    sockets[0]!.message({ type: "snapshot", topic: "run:7", seq: 1, data: {}, at: 0 });
    expect(r.changed).toEqual(["run:7"]);
  });

  it("pauses while the tab is hidden (subscribes to nothing) and resubscribes and resyncs when shown", () => {
    let hidden = false;
    let listener: (() => void) | null = null;
    const { client, sockets } = harness({
      visibility: {
        hidden: () => hidden,
        onChange: (l) => ((listener = l), () => (listener = null)),
      },
    });
    const r = recorder(["runs", "run:3"]);
    client.subscribe(r.sub);
    const ws = sockets[0]!;
    ws.open();
    expect(r.resyncs()).toBe(1);
    ws.sent.length = 0;
    hidden = true;
    listener!();
    expect(ws.sent.map((m) => JSON.parse(m))).toEqual([{ type: "subscribe", topics: [] }]);
    hidden = false;
    listener!();
    expect(JSON.parse(ws.sent[1]!)).toEqual({ type: "subscribe", topics: ["run:3", "runs"] });
    expect(r.resyncs()).toBe(2);
  });
});
