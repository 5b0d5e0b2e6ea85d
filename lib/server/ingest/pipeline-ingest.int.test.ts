import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";

import { settle } from "@/lib/server/metric-store";
import { ingestHarness } from "@/test/support/ingest";

// The pipeline frames (progress, metrics, artifacts, events, heartbeats) through the real ingest
// code into a real PostgreSQL: monotonic counters across worker restarts, non-finite metric
// values, 64-bit steps, overflow and invariant alerts raised once per transition.

// `ingest` validates frames like the transports do, then applies them; it returns the outcomes.
const {
  pool,
  principal,
  apply: ingest,
  startRun: startRunOf,
  close,
} = await ingestHarness("gpu-node-7");
afterAll(close);

/** Starts an extraction run of 914,000 samples; `extra` adds or overrides fields (e.g. `kind`). */
const startRun = (extra: Record<string, unknown> = {}) =>
  startRunOf("extraction", "hidden states", { total: 914_000, unit: "samples", ...extra });

async function events(runId: number) {
  await settle(pool, runId); // step_overflow alerts of small batches are raised by the fold
  return (
    await pool.query<{ code: string | null; level: string; message: string }>(
      `SELECT code, level, message FROM "RunEvent" WHERE "runId" = $1 ORDER BY id`,
      [runId],
    )
  ).rows;
}

describe("run.progress", () => {
  test("counters stay monotonic across a worker restart: 1000, 1010, restart, 5, 15 → 1025", async () => {
    const { run, id } = await startRun();
    const push = (bootId: string, uploaded: number, inflight: number) =>
      ingest({
        type: "run.progress",
        run,
        workerId: "gpu0",
        bootId,
        done: uploaded,
        counters: { "s3.uploaded": uploaded, "s3.inflight": inflight },
      });
    await push("boot-a", 1000, 90);
    await push("boot-a", 1010, 100);
    await push("boot-b", 5, 3);
    await push("boot-b", 15, 7);
    const w = (
      await pool.query(`SELECT counters, done, "bootId" FROM "WorkerProgress" WHERE "runId" = $1`, [
        id,
      ])
    ).rows[0];
    expect(w.counters).toEqual({ "s3.uploaded": 1025, "s3.inflight": 7 });
    expect(w.done).toBe(15);
    expect(w.bootId).toBe("boot-b");
    const samples = await pool.query(
      `SELECT count(*)::int AS n FROM "ProgressSample" WHERE "runId" = $1`,
      [id],
    );
    expect(samples.rows[0].n).toBe(4);
  });

  test("several pushes of one worker in one batch chain correctly", async () => {
    const { run, id } = await startRun();
    const frames = [1, 2, 3].map((n) => ({
      type: "run.progress",
      run,
      workerId: "w",
      bootId: "b",
      counters: { "s3.uploaded": n * 10 },
    }));
    await ingest(...frames, {
      type: "run.progress",
      run,
      workerId: "w",
      bootId: "b2",
      counters: { "s3.uploaded": 4 },
    });
    const w = (await pool.query(`SELECT counters FROM "WorkerProgress" WHERE "runId" = $1`, [id]))
      .rows[0];
    expect(w.counters["s3.uploaded"]).toBe(34);
  });

  test("progress for a run never started is rejected alone", async () => {
    const { run } = await startRun();
    const outcomes = await ingest(
      { type: "run.progress", run: `missing-${randomUUID()}`, bootId: "b", done: 1 },
      { type: "run.progress", run, bootId: "b", done: 2 },
    );
    expect(outcomes.map((o) => (o.ok ? "ok" : o.code))).toEqual(["unknown_run", "ok"]);
  });

  test("'deleted locally but never uploaded' is raised once per transition, and cleared", async () => {
    const { run, id } = await startRun();
    const push = (uploaded: number, deleted: number) =>
      ingest({
        type: "run.progress",
        run,
        workerId: "gpu1",
        bootId: "b",
        counters: { "s3.uploaded": uploaded, "local.deleted": deleted },
      });
    await push(100, 100);
    expect(await events(id)).toEqual([]);
    await push(100, 120);
    await push(101, 125);
    const raised = await events(id);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ code: "deleted_before_upload", level: "error" });
    expect(
      (await pool.query(`SELECT "activeAlerts" FROM "Run" WHERE id = $1`, [id])).rows[0]
        .activeAlerts,
    ).toEqual(["deleted_before_upload"]);
    await push(130, 125);
    const after = await events(id);
    expect(after.map((e) => e.code)).toEqual([
      "deleted_before_upload",
      "deleted_before_upload_resolved",
    ]);
    expect(
      (await pool.query(`SELECT "activeAlerts" FROM "Run" WHERE id = $1`, [id])).rows[0]
        .activeAlerts,
    ).toEqual([]);
  });
});

describe("run.metrics", () => {
  test("non-finite values are stored as such; a re-sent step replaces; out-of-order steps are kept", async () => {
    const { run, id } = await startRun({ kind: "training" });
    await ingest({
      type: "run.metrics",
      run,
      points: [
        { key: "loss", step: 20, value: 1.5 },
        { key: "loss", step: 10, value: 2.5 },
        { key: "loss", step: 30, value: "NaN" },
      ],
    });
    await ingest({
      type: "run.metrics",
      run,
      points: [
        { key: "loss", step: 20, value: 1.25 },
        { key: "grad_norm", step: 30, value: "Infinity" },
      ],
    });
    const rows = (
      await pool.query<{ key: string; step: string; value: number }>(
        `SELECT key, step::text, value FROM "MetricPoint" WHERE "runId" = $1 ORDER BY key, step`,
        [id],
      )
    ).rows;
    expect(rows.map((r) => [r.key, r.step])).toEqual([
      ["grad_norm", "30"],
      ["loss", "10"],
      ["loss", "20"],
      ["loss", "30"],
    ]);
    expect(rows[0]!.value).toBe(Infinity);
    expect(rows[2]!.value).toBe(1.25);
    expect(rows[3]!.value).toBeNaN();
  });

  test("steps are 64-bit: a step beyond 2^53 sent as a string is stored exactly", async () => {
    const { run, id } = await startRun({ kind: "training" });
    await ingest({
      type: "run.metrics",
      run,
      points: [{ key: "tokens", step: "9007199254740993", value: 1 }],
    });
    const row = (
      await pool.query(`SELECT step::text AS step FROM "MetricPoint" WHERE "runId" = $1`, [id])
    ).rows[0];
    expect(row.step).toBe("9007199254740993");
  });

  test("a step that jumps back by about 2^32 raises a step_overflow alert; an ordinary resume does not", async () => {
    const { run, id } = await startRun({ kind: "training" });
    await ingest({ type: "run.metrics", run, points: [{ key: "loss", step: 5000, value: 1 }] });
    await ingest({ type: "run.metrics", run, points: [{ key: "loss", step: 4000, value: 1 }] });
    expect(await events(id)).toEqual([]);
    await ingest({
      type: "run.metrics",
      run,
      points: [{ key: "loss", step: 4294967290, value: 1 }],
    });
    await ingest({ type: "run.metrics", run, points: [{ key: "loss", step: 6, value: 1 }] });
    const raised = await events(id);
    expect(raised.map((e) => e.code)).toEqual(["step_overflow"]);
    expect(raised[0]!.message).toContain("4294967290");
  });
});

describe("run.eval and baseline.upsert", () => {
  test("eval results keep raw counts per (run, key); a re-sent key replaces; baselines upsert by name", async () => {
    const { run, id } = await startRun({ kind: "eval" });
    const result = (
      key: string,
      step: number,
      category: string,
      verifySteps: number,
      acceptedTokens: number,
    ) => ({
      key,
      checkpoint: { step, uri: `s3://drafters/dflash/step-${step}` },
      promptId: key,
      category,
      verifySteps,
      acceptedTokens,
      draft: { blockSize: 16, tree: "ddtree-8" },
    });
    await ingest({
      type: "run.eval",
      run,
      results: [result("p1", 4000, "coding", 100, 900), result("p2", 4000, "math", 50, 200)],
    });
    await ingest({ type: "run.eval", run, results: [result("p2", 4000, "math", 50, 250)] });
    const rows = (
      await pool.query(
        `SELECT key, "checkpointStep"::text AS step, category, "verifySteps", "acceptedTokens", draft FROM "EvalResult" WHERE "runId" = $1 ORDER BY key`,
        [id],
      )
    ).rows;
    expect(rows).toEqual([
      {
        key: "p1",
        step: "4000",
        category: "coding",
        verifySteps: 100,
        acceptedTokens: 900,
        draft: { blockSize: 16, tree: "ddtree-8" },
      },
      {
        key: "p2",
        step: "4000",
        category: "math",
        verifySteps: 50,
        acceptedTokens: 250,
        draft: { blockSize: 16, tree: "ddtree-8" },
      },
    ]);
    const name = `reference-${randomUUID()}`;
    await ingest({ type: "baseline.upsert", name, metric: "tau", value: 12.1 });
    await ingest({
      type: "baseline.upsert",
      name,
      metric: "tau",
      value: 12.4,
      tolerance: 0.3,
      dataset: "humaneval",
      sourceUrl: "https://example.org/drafter",
    });
    const b = (
      await pool.query(`SELECT metric, value, tolerance, dataset FROM "Baseline" WHERE name = $1`, [
        name,
      ])
    ).rows;
    expect(b).toEqual([{ metric: "tau", value: 12.4, tolerance: 0.3, dataset: "humaneval" }]);
  });
});

describe("concurrency", () => {
  test("concurrent batches touching the same runs in opposite orders all commit (deadlocks are retried)", async () => {
    const a = await startRun();
    const b = await startRun();
    const push = (run: string, workerId: string, n: number) => ({
      type: "run.progress",
      run,
      workerId,
      bootId: "b",
      done: n,
      counters: { "s3.uploaded": n },
    });
    const batches = Array.from({ length: 24 }, (_, i) =>
      i % 2 === 0
        ? [push(a.run, `w${i}`, i), push(b.run, `w${i}`, i)]
        : [push(b.run, `w${i}`, i), push(a.run, `w${i}`, i)],
    );
    const results = await Promise.all(batches.map((frames) => ingest(...frames)));
    expect(results.flat().every((o) => o.ok)).toBe(true);
    const rows = await pool.query(
      `SELECT count(*)::int AS n FROM "WorkerProgress" WHERE "runId" = ANY($1::int[])`,
      [[a.id, b.id]],
    );
    expect(rows.rows[0].n).toBe(48);
  });
});

describe("artifacts, events, heartbeats", () => {
  test("an artifact is upserted by uri; events are appended", async () => {
    const { run, id } = await startRun({ kind: "training" });
    const uri = "s3://drafters/dflash-bs16/step-1000/model.safetensors";
    await ingest({ type: "run.artifact", run, kind: "checkpoint", uri, step: 1000 });
    await ingest(
      { type: "run.artifact", run, kind: "checkpoint", uri, step: 1000, sizeBytes: 3_400_000_000 },
      { type: "run.event", run, level: "warn", message: "upload retried twice" },
    );
    const artifacts = (
      await pool.query(
        `SELECT kind, uri, "sizeBytes", step::text AS step FROM "Artifact" WHERE "runId" = $1`,
        [id],
      )
    ).rows;
    expect(artifacts).toEqual([
      { kind: "checkpoint", uri, sizeBytes: 3_400_000_000, step: "1000" },
    ]);
    expect(await events(id)).toEqual([
      { code: null, level: "warn", message: "upload retried twice" },
    ]);
  });

  test("a heartbeat stores the host's facts and a sample for its charts", async () => {
    const ts = Date.now();
    await ingest({
      type: "heartbeat",
      ts,
      intervalS: 5,
      facts: {
        gpus: [
          {
            index: 0,
            name: "NVIDIA RTX A6000",
            utilPct: 97,
            memUsedMiB: 45000,
            memTotalMiB: 49140,
            tempC: 71,
          },
        ],
        cpuPct: 12.5,
        diskFreeBytes: 1.2e12,
      },
    });
    const host = (
      await pool.query(
        `SELECT facts, "heartbeatIntervalS", "lastHeartbeatAt" FROM "Host" WHERE id = $1`,
        [principal.hostId],
      )
    ).rows[0];
    expect(host.facts.gpus[0].utilPct).toBe(97);
    expect(host.heartbeatIntervalS).toBe(5);
    expect(host.lastHeartbeatAt.getTime()).toBe(ts);
    const samples = await pool.query(
      `SELECT count(*)::int AS n FROM "HostSample" WHERE "hostId" = $1`,
      [principal.hostId],
    );
    expect(samples.rows[0].n).toBe(1);
  });
});
