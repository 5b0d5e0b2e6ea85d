import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, describe, expect, test } from "vitest";

import { checkFrame, type ClientFrame } from "@/lib/protocol";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";
import { ingestHarness, type RawFrame } from "@/test/support/ingest";

import { applyGroup, type FrameOutcome } from "./apply";
import { GroupCommitter } from "./group-commit";

// The cross-socket group commit against a real PostgreSQL: batches of several hosts applied in
// one transaction, each with its own token; a poison frame of one socket costs no other frame;
// resends are applied once; an outage at COMMIT acks nothing of any socket in the group.

const h = await ingestHarness("group-a");
afterAll(h.close);

/** Validated frames with fresh ids (or the given `id`). */
function frames(...raw: RawFrame[]): ClientFrame[] {
  return raw.map((r) => {
    const check = checkFrame({ v: 1, id: randomUUID(), ...r });
    if (!check.ok) throw new Error(`${check.code}: ${check.message}`);
    return check.frame;
  });
}

const codes = (outcomes: FrameOutcome[]) =>
  outcomes.map((o) => (o.ok ? (o.duplicate ? "dup" : "ok") : o.code));

async function eventsOf(runId: number) {
  return (
    await h.pool.query<{ message: string }>(
      `SELECT message FROM "RunEvent" WHERE "runId" = $1 ORDER BY id`,
      [runId],
    )
  ).rows.map((r) => r.message);
}

async function progressSamples(runId: number) {
  return (
    await h.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "ProgressSample" WHERE "runId" = $1`,
      [runId],
    )
  ).rows[0]!.n;
}

/** A second host with its own token and a run it started. */
async function hostWithRun(
  name: string,
): Promise<{ principal: TokenPrincipal; run: string; id: number }> {
  const principal = await h.principalFor(`${name}-${randomUUID().slice(0, 8)}`);
  const run = `group-${randomUUID()}`;
  const [started] = await applyGroup(h.pool, [
    { principal, frames: frames({ type: "run.start", run, name: "train", kind: "training" }) },
  ]);
  expect(codes(started!)).toEqual(["ok"]);
  return { principal, run, id: await h.runId(run) };
}

describe("applyGroup", () => {
  test("two hosts' batches commit in one transaction, each as its own host", async () => {
    const t0 = Date.now() - 60_000;
    const a = await hostWithRun("ga");
    const b = await hostWithRun("gb");
    const [outA, outB] = await applyGroup(h.pool, [
      {
        principal: a.principal,
        frames: frames(
          { type: "heartbeat", intervalS: 5, facts: { cpuPct: 1 }, ts: t0 },
          { type: "run.progress", run: a.run, workerId: "w0", bootId: "b", done: 10 },
          { type: "heartbeat", facts: { cpuPct: 2 }, ts: t0 + 1000 },
        ),
      },
      {
        principal: b.principal,
        frames: frames(
          { type: "run.event", run: b.run, level: "info", message: "b says hi" },
          { type: "heartbeat", intervalS: 7 },
        ),
      },
    ]);
    expect([codes(outA!), codes(outB!)]).toEqual([
      ["ok", "ok", "ok"],
      ["ok", "ok"],
    ]);
    // One transaction: every frame-id row of the group carries the same xmin.
    const ids = [...outA!, ...outB!].map((o) => o.id);
    const xmins = await h.pool.query<{ xmin: string }>(
      `SELECT DISTINCT xmin::text FROM "IngestedFrame" WHERE "frameId" = ANY($1::text[])`,
      [ids],
    );
    expect(xmins.rows).toHaveLength(1);
    // Two heartbeats of one host fold as if applied in turn: last interval and facts given, latest time, a sample each.
    const hosts = await h.pool.query<{
      id: number;
      heartbeatIntervalS: number;
      facts: unknown;
      lastHeartbeatAt: Date;
    }>(
      `SELECT id, "heartbeatIntervalS", facts, "lastHeartbeatAt" FROM "Host" WHERE id = ANY($1::int[]) ORDER BY id`,
      [[a.principal.hostId, b.principal.hostId]],
    );
    expect(hosts.rows.map((r) => [r.id, r.heartbeatIntervalS])).toEqual([
      [a.principal.hostId, 5],
      [b.principal.hostId, 7],
    ]);
    expect(hosts.rows[0]!.facts).toEqual({ cpuPct: 2 });
    expect(hosts.rows[0]!.lastHeartbeatAt.getTime()).toBe(t0 + 1000);
    const samples = await h.pool.query(`SELECT 1 FROM "HostSample" WHERE "hostId" = $1`, [
      a.principal.hostId,
    ]);
    expect(samples.rowCount).toBe(2);
    expect(await progressSamples(a.id)).toBe(1);
    expect(await eventsOf(b.id)).toEqual(["b says hi"]);
  });

  test("a poison frame of one socket is rejected alone: the other socket's frames and its own good ones are acked and stored", async () => {
    const a = await hostWithRun("pa");
    const b = await hostWithRun("pb");
    const c = await hostWithRun("pc");
    const [outA, outB, outC] = await applyGroup(h.pool, [
      {
        principal: a.principal,
        frames: frames(
          { type: "run.event", run: a.run, level: "info", message: "a1" },
          { type: "run.progress", run: a.run, workerId: "w", bootId: "b", done: 1 },
        ),
      },
      // PostgreSQL refuses a NUL in text (22021): the group's one event insert fails.
      {
        principal: b.principal,
        frames: frames(
          { type: "run.event", run: b.run, level: "info", message: "b1" },
          { type: "run.event", run: b.run, level: "info", message: "bad\u0000nul" },
          { type: "run.event", run: b.run, level: "info", message: "b3" },
        ),
      },
      {
        principal: c.principal,
        frames: frames(
          { type: "heartbeat", intervalS: 3 },
          { type: "run.event", run: c.run, level: "warn", message: "c1" },
        ),
      },
    ]);
    expect(codes(outA!)).toEqual(["ok", "ok"]);
    expect(codes(outB!)).toEqual(["ok", "invalid_frame", "ok"]);
    expect(codes(outC!)).toEqual(["ok", "ok"]);
    expect(await eventsOf(a.id)).toEqual(["a1"]);
    expect(await eventsOf(b.id)).toEqual(["b1", "b3"]);
    expect(await eventsOf(c.id)).toEqual(["c1"]);
    expect(await progressSamples(a.id)).toBe(1);
    // The poison frame's id was never claimed: it may be sent again (and is refused again).
    const claimed = await h.pool.query(
      `SELECT 1 FROM "IngestedFrame" WHERE "hostId" = $1 AND "frameId" = $2`,
      [b.principal.hostId, outB![1]!.id],
    );
    expect(claimed.rowCount).toBe(0);
  });

  test("exactly once per (host, frame id): a resent group, and the same frames regrouped, are acked as duplicates and not applied again", async () => {
    const a = await hostWithRun("ea");
    const b = await hostWithRun("eb");
    const fa = frames(
      { type: "run.event", run: a.run, level: "info", message: "a" },
      { type: "run.progress", run: a.run, workerId: "w", bootId: "b", done: 1 },
    );
    const fb = frames({ type: "run.event", run: b.run, level: "info", message: "b" });
    // The same frame id from another host is another frame.
    const sameIdOtherHost = frames({
      id: fb[0]!.id,
      type: "run.event",
      run: a.run,
      level: "info",
      message: "a-same-id",
    });
    const first = await applyGroup(h.pool, [
      { principal: a.principal, frames: fa },
      { principal: b.principal, frames: fb },
    ]);
    expect(first.map(codes)).toEqual([["ok", "ok"], ["ok"]]);
    const again = await applyGroup(h.pool, [
      { principal: b.principal, frames: fb },
      { principal: a.principal, frames: [...fa, ...sameIdOtherHost] },
    ]);
    expect(again.map(codes)).toEqual([["dup"], ["dup", "dup", "ok"]]);
    const alone = await applyGroup(h.pool, [{ principal: a.principal, frames: [fa[1]!] }]);
    expect(alone.map(codes)).toEqual([["dup"]]);
    expect(await eventsOf(a.id)).toEqual(["a", "a-same-id"]);
    expect(await eventsOf(b.id)).toEqual(["b"]);
    expect(await progressSamples(a.id)).toBe(1);
  });

  test("ownership stays per token inside a group: another host's run is forbidden to one part, allowed to its owner's part", async () => {
    const a = await hostWithRun("oa");
    const b = await hostWithRun("ob");
    const [outA, outB] = await applyGroup(h.pool, [
      {
        principal: a.principal,
        frames: frames(
          { type: "run.event", run: b.run, level: "info", message: "a writes b" },
          { type: "run.event", run: a.run, level: "info", message: "a own" },
        ),
      },
      {
        principal: b.principal,
        frames: frames({ type: "run.event", run: b.run, level: "info", message: "b own" }),
      },
    ]);
    expect([codes(outA!), codes(outB!)]).toEqual([["forbidden", "ok"], ["ok"]]);
    expect(await eventsOf(b.id)).toEqual(["b own"]);
  });
});

/** `pool`, except that every COMMIT fails like an administrator shutdown (57P01) after rolling back. */
function commitFailsWithOutage(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, prop) {
      if (prop !== "connect") return Reflect.get(target, prop, target) as unknown;
      return async () => {
        const client = await target.connect();
        return new Proxy(client, {
          get(c, p) {
            if (p !== "query") {
              const value = Reflect.get(c, p, c) as unknown;
              return typeof value === "function"
                ? (value as (...args: unknown[]) => unknown).bind(c)
                : value;
            }
            return async (...args: unknown[]) => {
              const text =
                typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
              if (text === "COMMIT") {
                await c.query("ROLLBACK");
                throw Object.assign(
                  new Error("terminating connection due to administrator command"),
                  { code: "57P01" },
                );
              }
              return (c.query as (...a: unknown[]) => unknown).apply(c, args);
            };
          },
        });
      };
    },
  });
}

describe("GroupCommitter", () => {
  test("batches submitted while a group commits go together into the next one; each submitter gets its own outcomes", async () => {
    const committer = new GroupCommitter(h.pool, { maxGroups: 1 });
    const [a, b, c] = [await hostWithRun("ca"), await hostWithRun("cb"), await hostWithRun("cc")];
    const ev = (run: string, message: string) =>
      frames({ type: "run.event", run, level: "info", message });
    const pa = committer.submit(a.principal, ev(a.run, "a"));
    const bFrames = ev(b.run, "b");
    const pb = committer.submit(b.principal, bFrames);
    const pc = committer.submit(c.principal, [
      ...ev(c.run, "c"),
      ...frames({ type: "run.event", run: "no-such-run", level: "info", message: "x" }),
    ]);
    // A second batch of host b (another socket of it) joins b's group, after b's part; a third
    // repeating b's frame id (a resend on a new socket) waits for a later group: a duplicate.
    const pb2 = committer.submit(b.principal, ev(b.run, "b2"));
    const pbResent = committer.submit(b.principal, [...ev(b.run, "b3"), bFrames[0]!]);
    const [oa, ob, oc, ob2, ob3] = await Promise.all([pa, pb, pc, pb2, pbResent]);
    expect([codes(oa), codes(ob), codes(oc), codes(ob2), codes(ob3)]).toEqual([
      ["ok"],
      ["ok"],
      ["ok", "unknown_run"],
      ["ok"],
      ["ok", "dup"],
    ]);
    const xmin = async (o: FrameOutcome[]) =>
      (
        await h.pool.query<{ xmin: string }>(
          `SELECT xmin::text FROM "IngestedFrame" WHERE "frameId" = $1`,
          [o[0]!.id],
        )
      ).rows[0]!.xmin;
    const [xa, xb, xc, xb2] = [await xmin(oa), await xmin(ob), await xmin(oc), await xmin(ob2)];
    expect(xb).toBe(xc);
    expect(xa).not.toBe(xb);
    expect(xb2).toBe(xb);
    expect(await xmin(ob3)).not.toBe(xb);
    expect(await eventsOf(b.id)).toEqual(["b", "b2", "b3"]);
  });

  test("small batches wait for the group in flight and go together into the next one; enough bytes start a group beside it", async () => {
    // Without the minimum interval between group starts (tested below): d would wait for it and take e and f along.
    const committer = new GroupCommitter(h.pool, {
      maxGroups: 3,
      parallelMinBytes: 1000,
      minGroupIntervalMs: 0,
      overlapAfterMs: 0, // tested on its own below
    });
    const hosts: Array<Awaited<ReturnType<typeof hostWithRun>>> = [];
    for (const name of ["pa", "pb", "pc", "pd", "pe", "pf"]) hosts.push(await hostWithRun(name));
    const ev = (i: number) =>
      frames({ type: "run.event", run: hosts[i]!.run, level: "info", message: `m${i}` });
    const xmin = async (o: FrameOutcome[]) =>
      (
        await h.pool.query<{ xmin: string }>(
          `SELECT xmin::text FROM "IngestedFrame" WHERE "frameId" = $1`,
          [o[0]!.id],
        )
      ).rows[0]!.xmin;
    // a starts a group; b and c (20 bytes waiting, under 1000) wait for it and share the next.
    const small = await Promise.all(
      [0, 1, 2].map((i) => committer.submit(hosts[i]!.principal, ev(i), 10)),
    );
    const [xa, xb, xc] = await Promise.all(small.map(xmin));
    expect(xb).toBe(xc);
    expect(xa).not.toBe(xb);
    // d starts a group; e (5,000 bytes) starts a second beside it at once; f (10 bytes) waits for a free turn.
    const mixed = await Promise.all(
      [
        [3, 10],
        [4, 5000],
        [5, 10],
      ].map(([i, bytes]) => committer.submit(hosts[i!]!.principal, ev(i!), bytes)),
    );
    const [xd, xe, xf] = await Promise.all(mixed.map(xmin));
    expect(new Set([xd, xe, xf]).size).toBe(3);
    expect(mixed.map(codes)).toEqual([["ok"], ["ok"], ["ok"]]);
  });

  test("under steady traffic the next group waits for the minimum interval and takes every batch submitted meanwhile: two runs in a batch, a re-sent and a repeated id, refused frames beside good ones", async () => {
    const committer = new GroupCommitter(h.pool, { minGroupIntervalMs: 300, overlapAfterMs: 0 });
    const a = await hostWithRun("la");
    const a2 = `group-${randomUUID()}`;
    const b = await hostWithRun("lb");
    const c = await hostWithRun("lc");
    const metrics = (run: string, step: number) =>
      frames({
        type: "run.metrics",
        run,
        points: [
          { key: "loss", step, value: step / 10 },
          { key: "lr", step, value: 0.001 },
        ],
      });
    // The first group starts at once (nothing started before it) and holds a's first step.
    const first = metrics(a.run, 1);
    const started = await committer.submit(a.principal, [
      ...frames({ type: "run.start", run: a2, name: "rank 1", kind: "training" }),
      ...first,
    ]);
    expect(codes(started)).toEqual(["ok", "ok"]);
    // The first group's bookkeeping ends a few microtasks after its submitter hears back.
    await new Promise((r) => setTimeout(r, 20));
    // Submitted well within the interval: nothing is in flight, yet they wait for it and go
    // together (without the interval a would start a group of its own at once). a: steps of two runs, step 1 re-sent (committed above), a frame id repeated in
    // the batch; b: a frame for a run that does not exist and one for c's run (forbidden) beside
    // a good one; c: a heartbeat and progress.
    const twice = metrics(a2, 2)[0]!;
    const pa = committer.submit(a.principal, [
      ...metrics(a.run, 2),
      twice,
      ...first,
      { ...twice },
      ...metrics(a2, 3),
    ]);
    const pb = committer.submit(b.principal, [
      ...frames({ type: "run.event", run: "no-such-run", level: "info", message: "x" }),
      ...frames({ type: "run.event", run: c.run, level: "info", message: "not b's" }),
      ...metrics(b.run, 1),
    ]);
    const pc = committer.submit(c.principal, [
      ...frames({ type: "heartbeat", intervalS: 5 }),
      ...frames({ type: "run.progress", run: c.run, workerId: "w", bootId: "b1", done: 7 }),
    ]);
    const [oa, ob, oc] = await Promise.all([pa, pb, pc]);
    expect([codes(oa), codes(ob), codes(oc)]).toEqual([
      ["ok", "ok", "dup", "dup", "ok"],
      ["unknown_run", "forbidden", "ok"],
      ["ok", "ok"],
    ]);
    const xmins = await h.pool.query<{ xmin: string }>(
      `SELECT DISTINCT xmin::text FROM "IngestedFrame" WHERE "frameId" = ANY($1::text[])`,
      [[...oa, ...ob, ...oc].filter((o) => o.ok && !o.duplicate).map((o) => o.id)],
    );
    expect(xmins.rows).toHaveLength(1);
    const firstXmin = await h.pool.query<{ xmin: string }>(
      `SELECT xmin::text FROM "IngestedFrame" WHERE "frameId" = $1`,
      [first[0]!.id],
    );
    expect(firstXmin.rows[0]!.xmin).not.toBe(xmins.rows[0]!.xmin);
    // Every point once, each run's own: the view reads pending and folded points alike.
    const points = await h.pool.query<{ run: string; key: string; step: string; n: number }>(
      `SELECT r.key AS run, p.key, p.step::text AS step, count(*)::int AS n FROM "MetricPoint" p JOIN "Run" r ON r.id = p."runId"
        WHERE r.key = ANY($1::text[]) GROUP BY 1, 2, 3 ORDER BY 1, 3, 2`,
      [[a.run, a2, b.run]],
    );
    const got = points.rows.map(
      (r) => `${r.run === a.run ? "a" : r.run === a2 ? "a2" : "b"} ${r.key}@${r.step} x${r.n}`,
    );
    expect(got.sort()).toEqual(
      [
        "a loss@1 x1",
        "a lr@1 x1",
        "a loss@2 x1",
        "a lr@2 x1",
        "a2 loss@2 x1",
        "a2 lr@2 x1",
        "a2 loss@3 x1",
        "a2 lr@3 x1",
        "b loss@1 x1",
        "b lr@1 x1",
      ].sort(),
    );
    expect(await eventsOf(c.id)).toEqual([]);
    expect(await progressSamples(c.id)).toBe(1);
  });

  test("a poison frame in a group the interval gathered is rejected alone; the other batches are committed", async () => {
    const committer = new GroupCommitter(h.pool, { minGroupIntervalMs: 300, overlapAfterMs: 0 });
    const a = await hostWithRun("qa");
    const b = await hostWithRun("qb");
    // Starts the interval.
    expect(codes(await committer.submit(a.principal, frames({ type: "heartbeat" })))).toEqual([
      "ok",
    ]);
    await new Promise((r) => setTimeout(r, 20)); // nothing in flight now, the interval still runs
    const [oa, ob] = await Promise.all([
      committer.submit(
        a.principal,
        frames(
          { type: "run.event", run: a.run, level: "info", message: "a1" },
          { type: "run.event", run: a.run, level: "info", message: "bad\u0000nul" },
          { type: "run.event", run: a.run, level: "info", message: "a3" },
        ),
      ),
      committer.submit(
        b.principal,
        frames({ type: "run.event", run: b.run, level: "info", message: "b1" }),
      ),
    ]);
    expect([codes(oa), codes(ob)]).toEqual([["ok", "invalid_frame", "ok"], ["ok"]]);
    expect(await eventsOf(a.id)).toEqual(["a1", "a3"]);
    expect(await eventsOf(b.id)).toEqual(["b1"]);
  });

  test("a group of small frames stalled past overlapAfterMs does not hold the next one: it starts beside it and commits first", async () => {
    const committer = new GroupCommitter(h.pool, { minGroupIntervalMs: 0, overlapAfterMs: 100 });
    const a = await hostWithRun("oa");
    const b = await hostWithRun("ob");
    const ev = (run: string, message: string) =>
      frames({ type: "run.event", run, level: "info", message });
    // Another transaction holds a's run row: a's group waits for it in its run lookup.
    const holder = await h.pool.connect();
    let stalled: Promise<FrameOutcome[]> | undefined;
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM "Run" WHERE id = $1 FOR UPDATE`, [a.id]);
      let aDone = false;
      stalled = committer.submit(a.principal, ev(a.run, "a")).then((o) => {
        aDone = true;
        return o;
      });
      await new Promise((r) => setTimeout(r, 20));
      // b arrives while a's group is in flight: within overlapAfterMs it waits, after it starts its own.
      const t0 = performance.now();
      const ob = await committer.submit(b.principal, ev(b.run, "b"));
      expect(codes(ob)).toEqual(["ok"]);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(60);
      expect(aDone).toBe(false);
      expect(await eventsOf(b.id)).toEqual(["b"]);
      expect(await eventsOf(a.id)).toEqual([]);
    } finally {
      await holder.query("COMMIT");
      holder.release();
    }
    expect(codes(await stalled!)).toEqual(["ok"]);
    expect(await eventsOf(a.id)).toEqual(["a"]);
  });

  test("a batch with a run's 256+ metric points commits in a group of its own beside the small ones; its host's next batch is applied after it", async () => {
    const committer = new GroupCommitter(h.pool, { minGroupIntervalMs: 300, overlapAfterMs: 0 });
    const a = await hostWithRun("ha");
    const b = await hostWithRun("hb");
    const c = await hostWithRun("hc");
    const steps = (from: number, n: number, value: number) =>
      frames({
        type: "run.metrics",
        run: a.run,
        points: Array.from({ length: n }, (_, i) => ({ key: "loss", step: from + i, value })),
      });
    const xmin = async (o: FrameOutcome[]) =>
      (
        await h.pool.query<{ xmin: string }>(
          `SELECT xmin::text FROM "IngestedFrame" WHERE "frameId" = $1`,
          [o[0]!.id],
        )
      ).rows[0]!.xmin;
    expect(codes(await committer.submit(a.principal, steps(0, 300, 1)))).toEqual(["ok"]);
    // A small batch starts the interval; the next small ones wait for it.
    expect(codes(await committer.submit(c.principal, frames({ type: "heartbeat" })))).toEqual([
      "ok",
    ]);
    await new Promise((r) => setTimeout(r, 20));
    const pb = committer.submit(
      b.principal,
      frames({ type: "run.event", run: b.run, level: "info", message: "b" }),
    );
    // A restarted worker re-sends 300 stored steps with new values (the direct, slow path) …
    const pa = committer.submit(a.principal, steps(0, 300, 2));
    // … then replaces its last step and sends the next: applied after the re-send (later write wins).
    const pa2 = committer.submit(a.principal, steps(299, 2, 3));
    const pc = committer.submit(c.principal, frames({ type: "heartbeat", intervalS: 4 }));
    const [ob, oa, oa2, oc] = await Promise.all([pb, pa, pa2, pc]);
    expect([ob, oa, oa2, oc].map(codes)).toEqual([["ok"], ["ok"], ["ok"], ["ok"]]);
    const [xb, xa, xa2, xc] = await Promise.all([ob, oa, oa2, oc].map(xmin));
    expect(xb).toBe(xc);
    expect(xa).not.toBe(xb);
    expect(xa2).not.toBe(xa);
    const stored = await h.pool.query<{ value: number; n: number }>(
      `SELECT value, count(*)::int AS n FROM "MetricPoint" WHERE "runId" = $1 GROUP BY value ORDER BY value`,
      [a.id],
    );
    expect(stored.rows).toEqual([
      { value: 2, n: 299 },
      { value: 3, n: 2 },
    ]);
  });

  test("two heavy batches of one host waiting together go in groups of their own, not in one", async () => {
    // One group at a time: another host's small batch holds the turn while both heavy ones wait.
    const committer = new GroupCommitter(h.pool, { maxGroups: 1, overlapAfterMs: 0 });
    const a = await hostWithRun("hh");
    const c = await hostWithRun("hh2");
    const first = committer.submit(c.principal, frames({ type: "heartbeat" }));
    const block = (from: number) =>
      frames({
        type: "run.metrics",
        run: a.run,
        points: Array.from({ length: 300 }, (_, i) => ({ key: "loss", step: from + i, value: 1 })),
      });
    const outs = await Promise.all([
      committer.submit(a.principal, block(0), 10_000),
      committer.submit(a.principal, block(300), 10_000),
    ]);
    expect(codes(await first)).toEqual(["ok"]);
    expect(outs.map(codes)).toEqual([["ok"], ["ok"]]);
    const xmins = await Promise.all(
      outs.map(
        async (o) =>
          (
            await h.pool.query<{ xmin: string }>(
              `SELECT xmin::text FROM "IngestedFrame" WHERE "frameId" = $1`,
              [o[0]!.id],
            )
          ).rows[0]!.xmin,
      ),
    );
    expect(xmins[0]).not.toBe(xmins[1]);
  });

  test("a database outage at COMMIT rejects every part of the group with the driver's error; nothing is stored", async () => {
    const a = await hostWithRun("xa");
    const b = await hostWithRun("xb");
    const committer = new GroupCommitter(commitFailsWithOutage(h.pool), { maxGroups: 1 });
    const fa = frames({ type: "run.event", run: a.run, level: "info", message: "lost a" });
    const fb = frames(
      { type: "run.event", run: b.run, level: "info", message: "lost b" },
      { type: "heartbeat", intervalS: 9 },
    );
    const results = await Promise.allSettled([
      committer.submit(a.principal, fa),
      committer.submit(b.principal, fb),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    for (const r of results)
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "57P01" });
    const ids = [...fa, ...fb].map((f) => f.id);
    expect(
      (await h.pool.query(`SELECT 1 FROM "IngestedFrame" WHERE "frameId" = ANY($1::text[])`, [ids]))
        .rowCount,
    ).toBe(0);
    expect([await eventsOf(a.id), await eventsOf(b.id)]).toEqual([[], []]);
    // Resent after the outage, they apply once.
    const fine = new GroupCommitter(h.pool);
    const [ra, rb] = await Promise.all([
      fine.submit(a.principal, fa),
      fine.submit(b.principal, fb),
    ]);
    expect([codes(ra), codes(rb)]).toEqual([["ok"], ["ok", "ok"]]);
  });
});
