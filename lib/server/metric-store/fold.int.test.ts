import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";

import { logger } from "@/lib/server/logger";
import {
  getRunMetrics,
  latestFinitePoints,
  metricPointBatches,
  newestPoints,
  rebuildRunTiers,
  settle,
  startMetricFold,
} from "@/lib/server/metric-store";
import { ingestHarness } from "@/test/support/ingest";

import { lockStoreRuns } from "./store-lock";

// The recent-frame table "MetricPending" and its fold (fold.ts, README.md here), on a real
// PostgreSQL. The harness runs no background fold, so after an ack the points of a small batch
// are pending until a reader, settle() or a fold loop moves them.

const { databaseUrl, pool, prisma, ingest, startRun, close } = await ingestHarness("fold-host");
afterAll(close);

const KEYS = ["loss", "lr", "grad/norm"];
const frame = (run: string, step: number, value: (k: number) => number | string) => ({
  type: "run.metrics",
  run,
  points: KEYS.map((key, k) => ({ key, step, value: value(k) })),
});
const pendingRows = async (runId: number) =>
  (
    await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "MetricPending" WHERE "runId" = $1`,
      [runId],
    )
  ).rows[0]!.n;
const wire = (v: number) => (Number.isNaN(v) ? "NaN" : Number.isFinite(v) ? v : String(v));

/** Every chart request shape: all points, M4 columns, a zoomed range, a wide 64-bit range. */
const REQUESTS = [
  { maxPoints: 100_000 },
  { maxPoints: 8 },
  { maxPoints: 40 },
  { maxPoints: 8, fromStep: 10n, toStep: 60n },
  { maxPoints: 12, fromStep: -(2n ** 40n), toStep: 2n ** 40n },
];

describe("pending small batches and their fold", () => {
  test("a small frame acked is read back before any fold: the view, the chart read and the export", async () => {
    const { run, id } = await startRun("training");
    await ingest(frame(run, 7, (k) => [0.5, "NaN", "Infinity"][k]!));
    expect(await pendingRows(id)).toBe(1);
    // The view (and newestPoints, alert rules' read) includes pending points.
    expect((await newestPoints(pool, id, "loss", 5)).map((p) => [p.step, p.value])).toEqual([
      ["7", 0.5],
    ]);
    expect(await pendingRows(id)).toBe(1);
    // The chart read folds the run first: exact, NaN and Infinity kept.
    const view = await getRunMetrics(prisma, id);
    expect(view.series.map((s) => [s.key, s.total, s.points])).toEqual([
      ["grad/norm", 1, [{ step: 7, value: Infinity }]],
      ["loss", 1, [{ step: 7, value: 0.5 }]],
      ["lr", 1, [{ step: 7, value: NaN }]],
    ]);
    expect(await pendingRows(id)).toBe(0);
    // The export reads a second small batch before any fold, in key then step order.
    await ingest(frame(run, 3, (k) => k + 0.25));
    expect(await pendingRows(id)).toBe(1);
    const exported: Array<[string, string, number]> = [];
    for await (const batch of metricPointBatches(prisma, id))
      for (const r of batch) exported.push([r.key, r.step.toString(), r.value]);
    expect(exported).toEqual([
      ["grad/norm", "3", 2.25],
      ["grad/norm", "7", Infinity],
      ["loss", "3", 0.25],
      ["loss", "7", 0.5],
      ["lr", "3", 1.25],
      ["lr", "7", NaN],
    ]);
  });

  test("re-sent and out-of-order steps across pending batches: one value per step, the later write; tiers as rebuilt from raw points", async () => {
    const { run, id } = await startRun("training");
    const expected = new Map<string, number>(); // `${key}|${step}` -> value
    const send = async (steps: number[], value: (step: number, k: number) => number) => {
      await ingest(...steps.map((s) => frame(run, s, (k) => wire(value(s, k)))));
      for (const s of steps) KEYS.forEach((key, k) => expected.set(`${key}|${s}`, value(s, k)));
    };
    // Steps 0..59 one frame each (step 17 held back), several frames per batch.
    for (let s = 0; s < 60; s += 4)
      await send(
        [s, s + 1, s + 2, s + 3].filter((x) => x !== 17),
        (x, k) => x * (k + 1) + (x === 33 ? 1000 : 0),
      );
    await settle(pool, id); // some folded, the rest pending below
    // A resumed attempt re-sends 30..59 with other values (the spike at 33 replaced) and adds 60..69.
    for (let s = 30; s < 70; s += 5)
      await send([s, s + 1, s + 2, s + 3, s + 4], (x, k) => -x - k / 10);
    // The held-back step arrives last; one NaN and one -Infinity replace finite points.
    await send([17], (x) => x / 2);
    await send([40], (_x, k) => (k === 0 ? NaN : k === 1 ? -Infinity : 4));
    // The same step twice in one batch: the later frame wins.
    await ingest(
      frame(run, 61, () => 1),
      frame(run, 61, () => 2),
    );
    KEYS.forEach((key) => expected.set(`${key}|61`, 2));
    expect(await pendingRows(id)).toBeGreaterThan(1);

    // Before the fold, the view already holds exactly one value per (key, step): the latest.
    const viewPoints = (
      await pool.query<{ key: string; step: string; value: number }>(
        `SELECT key, step::text AS step, value FROM "MetricPoint" WHERE "runId" = $1`,
        [id],
      )
    ).rows;
    expect(viewPoints).toHaveLength(expected.size);
    expect(new Map(viewPoints.map((p) => [`${p.key}|${p.step}`, p.value]))).toEqual(expected);

    // A large batch of the run (the block path) writes after the pending rows it finds, in order.
    const big = Array.from({ length: 300 }, (_, i) => ({ key: "loss", step: 100 + i, value: i }));
    big.push({ key: "loss", step: 65, value: 65.5 }); // replaces a pending point
    await ingest({ type: "run.metrics", run, points: big });
    for (const p of big) expected.set(`loss|${p.step}`, p.value);
    expect(await pendingRows(id)).toBe(0);

    const answers = await Promise.all(REQUESTS.map((r) => getRunMetrics(prisma, id, r)));
    const all = answers[0]!.series;
    expect(all.map((s) => s.key)).toEqual([...KEYS].sort());
    for (const s of all) {
      const want = [...expected]
        .filter(([k]) => k.startsWith(`${s.key}|`))
        .map(([k, v]) => [Number(k.split("|")[1]), v] as const)
        .sort((x, y) => x[0] - y[0]);
      expect(s.total).toBe(want.length);
      expect(s.points.map((p) => [Number(p.step), p.value])).toEqual(want);
    }
    // Every tier rebuilt from the raw points answers the same (spikes, NaN and ±Infinity included).
    await pool.query(`DELETE FROM "MetricTier" WHERE "runId" = $1`, [id]);
    await pool.query(`DELETE FROM "MetricNonFinite" WHERE "runId" = $1`, [id]);
    await rebuildRunTiers(pool, id);
    expect(await Promise.all(REQUESTS.map((r) => getRunMetrics(prisma, id, r)))).toEqual(answers);
  });

  test("latest values merge the tiers with pending points without folding them, except where a pending NaN replaced the stored latest point", async () => {
    const a = await startRun("training");
    const b = await startRun("training");
    await ingest(
      frame(a.run, 5, (k) => k + 0.5),
      frame(b.run, 5, (k) => k + 0.5),
    );
    await settle(pool);
    // Run a: loss gets a newer finite step, lr's stored latest step becomes NaN, a new key arrives.
    await ingest(
      { type: "run.metrics", run: a.run, points: [{ key: "loss", step: 6, value: 9 }] },
      { type: "run.metrics", run: a.run, points: [{ key: "lr", step: 5, value: "NaN" }] },
      { type: "run.metrics", run: a.run, points: [{ key: "new", step: 1, value: 3 }] },
    );
    // Run b: a re-sent latest step with another value, and an older step.
    await ingest({
      type: "run.metrics",
      run: b.run,
      points: [
        { key: "loss", step: 5, value: 7 },
        { key: "lr", step: 2, value: 8 },
      ],
    });
    const ids = [a.id, b.id];
    const merged = await latestFinitePoints(prisma, ids);
    // Only run a was folded (its lr answer was in the tiers below the replaced step).
    expect([await pendingRows(a.id), await pendingRows(b.id)]).toEqual([0, 1]);
    const simple = merged.map((r) => [r.runId, r.key, Number(r.step), r.value]);
    expect(simple).toEqual(
      expect.arrayContaining([
        [a.id, "loss", 6, 9],
        [a.id, "new", 1, 3],
        [b.id, "loss", 5, 7],
        [b.id, "lr", 5, 1.5],
        [b.id, "grad/norm", 5, 2.5],
      ]),
    );
    expect(simple.filter((r) => r[0] === a.id && r[1] === "lr")).toEqual([]);
    await settle(pool);
    expect(await latestFinitePoints(prisma, ids)).toEqual(merged);
  });

  test("a fold reads back exactly what was pending: 64-bit steps, keys with commas, quotes and braces, extreme and non-finite values, own and batch times", async () => {
    const { run, id } = await startRun("training");
    const ownTs = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const points = [
      { key: 'a,b "c" {d}', step: "9223372036854775807", value: 5e-324, ts: ownTs },
      { key: "ключ\\x", step: "-9223372036854775808", value: "-Infinity" },
      { key: "plain", step: 9007199254740993n.toString(), value: -0.1 + 1e-17 },
      { key: "plain", step: 1, value: 1.7976931348623157e308 },
    ];
    const before = Date.now();
    await ingest({ type: "run.metrics", run, points });
    expect(await pendingRows(id)).toBe(1);
    await settle(pool, id);
    expect(await pendingRows(id)).toBe(0);
    const rows = (
      await pool.query<{ key: string; step: string; value: string; ts: Date }>(
        `SELECT key, step::text AS step, value::text AS value, ts FROM "MetricPoint" WHERE "runId" = $1 ORDER BY key, step`,
        [id],
      )
    ).rows;
    expect(rows.map((r) => [r.key, r.step, r.value])).toEqual([
      ['a,b "c" {d}', "9223372036854775807", "5e-324"],
      ["plain", "1", "1.7976931348623157e+308"],
      ["plain", "9007199254740993", String(-0.1 + 1e-17)],
      ["ключ\\x", "-9223372036854775808", "-Infinity"],
    ]);
    expect(rows[0]!.ts.getTime()).toBe(ownTs);
    expect(rows[3]!.ts.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  test("a large batch that re-sends stored steps is acked as one pending row and merged by the fold: the later values, exact tiers", async () => {
    const { run, id } = await startRun("training");
    const points = (from: number, n: number, value: (step: number) => number) =>
      Array.from({ length: n }, (_, i) => ({
        key: "loss",
        step: from + i,
        value: value(from + i),
      }));
    const expected = new Map<number, number>();
    // 300 steps appended above everything stored: the direct block write, nothing pending.
    const first = points(0, 300, (x) => x);
    await ingest({ type: "run.metrics", run, points: first });
    for (const p of first) expected.set(p.step, p.value);
    expect(await pendingRows(id)).toBe(0);
    // A restarted worker re-sends 250..299 with other values (a spike and a NaN among them) and
    // adds 300..549: it re-sends stored steps, so it is acked as ONE pending row, not merged now.
    const again = points(250, 300, (x) => (x === 260 ? 1e9 : -x));
    again[20]!.value = NaN; // step 270
    await ingest({
      type: "run.metrics",
      run,
      points: again.map((p) => ({ ...p, value: wire(p.value) })),
    });
    for (const p of again) expected.set(p.step, p.value);
    expect(await pendingRows(id)).toBe(1);
    const answers = await Promise.all(REQUESTS.map((r) => getRunMetrics(prisma, id, r)));
    expect(await pendingRows(id)).toBe(0);
    const loss = answers[0]!.series.find((x) => x.key === "loss")!;
    expect(loss.total).toBe(550);
    expect(loss.points.map((p) => [Number(p.step), p.value])).toEqual(
      [...expected].sort((a, b) => a[0] - b[0]),
    );
    await pool.query(`DELETE FROM "MetricTier" WHERE "runId" = $1`, [id]);
    await pool.query(`DELETE FROM "MetricNonFinite" WHERE "runId" = $1`, [id]);
    await rebuildRunTiers(pool, id);
    expect(await Promise.all(REQUESTS.map((r) => getRunMetrics(prisma, id, r)))).toEqual(answers);
  });

  test("what a fold holds (the runs' store locks, FOR KEY SHARE) does not hold up small frames of its runs; a direct large write waits for it", async () => {
    const { run, id } = await startRun("training");
    await ingest({ type: "run.metrics", run, points: [{ key: "loss", step: 0, value: 1 }] });
    const holder = await pool.connect();
    let committed = false;
    try {
      await holder.query("BEGIN");
      await lockStoreRuns(holder, [id]);
      await holder.query(`SELECT id FROM "Run" WHERE id = $1 FOR KEY SHARE`, [id]);
      // A small frame of the run: appended as a pending row without waiting.
      const small = ingest({
        type: "run.metrics",
        run,
        points: [{ key: "loss", step: 1, value: 2 }],
      });
      const inTime = await Promise.race([
        small.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 5_000)),
      ]);
      expect(inTime).toBe(true);
      // 300 points above the stored steps go to blocks directly: that write waits for the fold.
      let done = false;
      const large = ingest({
        type: "run.metrics",
        run,
        points: Array.from({ length: 300 }, (_, i) => ({ key: "loss", step: 10 + i, value: i })),
      }).then(() => (done = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(done).toBe(false);
      await holder.query("COMMIT");
      committed = true;
      await large;
    } finally {
      if (!committed) await holder.query("ROLLBACK").catch(() => undefined);
      holder.release();
    }
    expect(await pendingRows(id)).toBe(0);
    const loss = (await getRunMetrics(prisma, id)).series.find((x) => x.key === "loss")!;
    expect(loss.total).toBe(302);
  });

  test("the fold loop folds many runs in small transactions (at most 8 runs each), so an ingest group waits for few run locks", async () => {
    const runs: Array<{ run: string; id: number }> = [];
    for (let r = 0; r < 20; r++) runs.push(await startRun("training"));
    // Two batches of 150 points each (pending: under 256 a batch), 300 points per run: due.
    const steps = (from: number) => ({
      points: Array.from({ length: 150 }, (_, i) => ({ key: "loss", step: from + i, value: i })),
    });
    for (const { run } of runs)
      for (const from of [0, 150]) await ingest({ type: "run.metrics", run, ...steps(from) });
    const ids = runs.map((r) => r.id);
    const loop = startMetricFold(pool, logger, 50);
    try {
      await expect
        .poll(
          async () =>
            (
              await pool.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM "MetricPending" WHERE "runId" = ANY($1::int4[])`,
                [ids],
              )
            ).rows[0]!.n,
          { timeout: 20_000 },
        )
        .toBe(0);
    } finally {
      await loop.stop();
    }
    // One block per run (its 300 steps of one key), written by the fold transaction that took it.
    const byTransaction = await pool.query<{ runs: number }>(
      `SELECT count(DISTINCT "runId")::int AS runs FROM "MetricBlock" WHERE "runId" = ANY($1::int4[]) GROUP BY xmin::text`,
      [ids],
    );
    expect(byTransaction.rows.reduce((n, r) => n + r.runs, 0)).toBe(20);
    expect(Math.max(...byTransaction.rows.map((r) => r.runs))).toBeLessThanOrEqual(8);
    const view = await getRunMetrics(prisma, ids[19]!);
    expect(view.series.find((x) => x.key === "loss")!.points).toHaveLength(300);
  });

  test("pending rows left by a crash are folded by the fold loop's first pass; a fold killed mid-transaction leaves them pending", async () => {
    const { run, id } = await startRun("training");
    for (let s = 0; s < 20; s++) await ingest(frame(run, s, (k) => s + k));
    expect(await pendingRows(id)).toBe(20);

    // A fold that took the rows and died before COMMIT (kill -9 of the server: the backend's
    // transaction is rolled back) leaves every row pending.
    const dying = new pg.Client({ connectionString: databaseUrl });
    dying.on("error", () => undefined); // the termination below
    await dying.connect();
    await dying.query("BEGIN");
    await dying.query(`SELECT id FROM "Run" WHERE id = $1 FOR NO KEY UPDATE`, [id]);
    const taken = await dying.query(`DELETE FROM "MetricPending" WHERE "runId" = $1`, [id]);
    expect(taken.rowCount).toBe(20);
    const pid = (await dying.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
    await pool.query(`SELECT pg_terminate_backend($1)`, [pid]);
    await dying.end().catch(() => undefined);
    await expect.poll(() => pendingRows(id)).toBe(20);

    // What a booting server does: the loop's first fold takes what is pending.
    const loop = startMetricFold(pool, logger, 50);
    try {
      await expect.poll(() => pendingRows(id), { timeout: 10_000 }).toBe(0);
    } finally {
      await loop.stop();
    }
    const tiers = (
      await pool.query<{ key: string; n: number; maxStep: string }>(
        `SELECT t.key, t.n, s."maxStep"::text AS "maxStep" FROM "MetricTier" t JOIN "MetricSeries" s USING ("runId", key)
          WHERE t."runId" = $1 AND t.bits = s."topBits" ORDER BY t.key`,
        [id],
      )
    ).rows;
    expect(tiers).toEqual(
      KEYS.map((key) => ({ key, n: 20, maxStep: "19" })).sort((a, b) => (a.key < b.key ? -1 : 1)),
    );
    const view = await getRunMetrics(prisma, id);
    expect(view.series.find((s) => s.key === "lr")!.points).toEqual(
      Array.from({ length: 20 }, (_, s) => ({ step: s, value: s + 1 })),
    );
    // Folding again finds nothing: the fold is idempotent.
    await settle(pool);
    expect(await getRunMetrics(prisma, id)).toEqual(view);
  });
});
