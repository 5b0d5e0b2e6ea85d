import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// `npx pitwall import` of training logs (bin/pitwall.mjs, as a user runs it) against the real
// server and database: the rows in "MetricPoint" carry the logs' exact values, and a re-import
// changes nothing.

const run = promisify(execFile);
const projectDir = path.resolve(import.meta.dirname, "..");

// Transformers Trainer, output_dir/trainer_state.json of a finished 30-step run (indent=2,
// sort_keys=True; the overflowed grad norm is a bare Infinity token).
const HF_STATE = `{
  "best_metric": null,
  "best_model_checkpoint": null,
  "epoch": 0.0969,
  "eval_steps": 20,
  "global_step": 30,
  "is_hyper_param_search": false,
  "is_local_process_zero": true,
  "is_world_process_zero": true,
  "log_history": [
    {
      "epoch": 0.0323,
      "grad_norm": 3.1416,
      "learning_rate": 5e-05,
      "loss": 2.3456,
      "step": 10
    },
    {
      "epoch": 0.0646,
      "grad_norm": Infinity,
      "learning_rate": 3.3333e-05,
      "loss": 1.9876,
      "step": 20
    },
    {
      "epoch": 0.0646,
      "eval_loss": 1.7342,
      "eval_runtime": 12.3456,
      "step": 20
    },
    {
      "epoch": 0.0969,
      "grad_norm": 0.8125,
      "learning_rate": 1.6667e-05,
      "loss": 1.5432,
      "step": 30
    },
    {
      "epoch": 0.0969,
      "step": 30,
      "total_flos": 1.234567e+16,
      "train_loss": 1.9588,
      "train_runtime": 123.4567
    }
  ],
  "logging_steps": 10,
  "max_steps": 30,
  "num_train_epochs": 1,
  "save_steps": 20,
  "total_flos": 1.234567e+16,
  "train_batch_size": 8,
  "trial_name": null,
  "trial_params": null
}
`;

// LLaMA-Factory trainer_log.jsonl of a run still going (step 40 of 100): a string throughput, a
// null eval_loss and loss, step 20 written twice (two writers; the second wins), a NaN loss.
const LF_LOG =
  [
    '{"current_steps": 10, "total_steps": 100, "loss": 1.2345, "eval_loss": null, "lr": 4.99e-05, "epoch": 0.03, "percentage": 10.0, "elapsed_time": "0:01:02", "remaining_time": "4 days, 5:06:09", "throughput": "1234.56", "total_tokens": 123456}',
    '{"current_steps": 20, "total_steps": 100, "loss": 1.2222, "lr": 4.9e-05, "epoch": 0.06, "percentage": 20.0, "elapsed_time": "0:02:04", "remaining_time": "1 day, 0:00:01.5", "throughput": 1200.5, "total_tokens": 246912}',
    '{"current_steps": 20, "total_steps": 100, "loss": 1.1111, "lr": 4.9e-05, "epoch": 0.06, "percentage": 20.0, "elapsed_time": "0:02:05", "remaining_time": "1 day, 0:00:00", "throughput": 1199.0, "total_tokens": 246912}',
    '{"current_steps": 30, "total_steps": 100, "loss": NaN, "lr": 4.8e-05, "epoch": 0.09, "percentage": 30.0, "elapsed_time": "0:03:06", "remaining_time": "0:07:14"}',
    '{"current_steps": 40, "total_steps": 100, "loss": null, "eval_loss": null, "lr": 4.7e-05, "epoch": 0.12, "percentage": 40.0, "elapsed_time": "0:04:08", "remaining_time": "0:06:12"}',
  ].join("\n") + "\n";

let server: TestServer;
let databaseUrl: string;
let db: pg.Client;
let token: string;
let dir: string;

/** Runs `pitwall <args>`; resolves with exit code and output (never rejects on exit code). */
async function pitwall(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(projectDir, "bin", "pitwall.mjs"), ...args],
      {
        cwd: projectDir,
        env: { ...process.env, DATABASE_URL: databaseUrl, PITWALL_URL: server.url, ...env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The metric series of a run as [key, step, value] sorted by key then step. */
async function metricRows(runKey: string): Promise<Array<[string, number, number]>> {
  const res = await db.query<{ key: string; step: string; value: number }>(
    `SELECT m.key, m.step::text AS step, m.value FROM "MetricPoint" m JOIN "Run" r ON r.id = m."runId" WHERE r.key = $1 ORDER BY m.key COLLATE "C", m.step`,
    [runKey],
  );
  return res.rows.map((r) => [r.key, Number(r.step), r.value]);
}

/** Everything an import writes for a run, timestamps included (to prove a re-import changes nothing). */
async function snapshot(runKey: string): Promise<unknown> {
  const runRow = await db.query(`SELECT * FROM "Run" WHERE key = $1`, [runKey]);
  const id = (runRow.rows[0] as { id: number }).id;
  const metrics = await db.query(
    `SELECT key, step::text, value::text, ts FROM "MetricPoint" WHERE "runId" = $1 ORDER BY key COLLATE "C", step`,
    [id],
  );
  const workers = await db.query(`SELECT * FROM "WorkerProgress" WHERE "runId" = $1`, [id]);
  const samples = await db.query(
    `SELECT id::text, "workerId", "bootId", ts, done FROM "ProgressSample" WHERE "runId" = $1 ORDER BY id`,
    [id],
  );
  return { run: runRow.rows, metrics: metrics.rows, workers: workers.rows, samples: samples.rows };
}

function runKeyOf(stdout: string, file: string): string {
  const line = stdout.split("\n").find((l) => l.startsWith(`${file}:`));
  const key = line?.match(/→ run (import:[0-9a-f]{32})/)?.[1];
  if (!key) throw new Error(`no run key for ${file} in:\n${stdout}`);
  return key;
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl });
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const created = await pitwall(["token", "create", "trainer-host"]);
  expect(created.code).toBe(0);
  token = created.stdout.trim().split("\n").at(-1)!;
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-trainlog-"));
  await fs.mkdir(path.join(dir, "out", "qwen3-drafter"), { recursive: true });
  await fs.mkdir(path.join(dir, "saves", "sft"), { recursive: true });
  await fs.writeFile(path.join(dir, "out", "qwen3-drafter", "trainer_state.json"), HF_STATE);
  await fs.writeFile(path.join(dir, "saves", "sft", "trainer_log.jsonl"), LF_LOG);
});

afterAll(async () => {
  await db?.end();
  await server?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("pitwall import of training logs", () => {
  test("a Hugging Face trainer_state.json and a LLaMA-Factory trainer_log.jsonl → exact metric rows; re-import changes nothing", async () => {
    const hfFile = path.join(dir, "out", "qwen3-drafter", "trainer_state.json");
    const lfFile = path.join(dir, "saves", "sft", "trainer_log.jsonl");
    const res = await pitwall(["import", hfFile, lfFile, "--tag", "trainlog"], {
      PITWALL_TOKEN: token,
    });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /^trainer_state\.json: hf-trainer-state, 17 metric points, step 30\/30 → run import:[0-9a-f]{32}, training finished$/m,
    );
    expect(res.stdout).toMatch(
      /^trainer_log\.jsonl: llamafactory-trainer-log, 23 metric points, step 40\/100 → run import:[0-9a-f]{32}, ended at its last logged step \(before its planned steps; outcome unknown\); 1 step logged twice \(1 with different values\); later values kept$/m,
    );
    const hfKey = runKeyOf(res.stdout, "trainer_state.json");
    const lfKey = runKeyOf(res.stdout, "trainer_log.jsonl");

    expect(await metricRows(hfKey)).toEqual([
      ["epoch", 10, 0.0323],
      ["epoch", 20, 0.0646],
      ["epoch", 30, 0.0969],
      ["eval_loss", 20, 1.7342],
      ["eval_runtime", 20, 12.3456],
      ["grad_norm", 10, 3.1416],
      ["grad_norm", 20, Number.POSITIVE_INFINITY],
      ["grad_norm", 30, 0.8125],
      ["learning_rate", 10, 5e-5],
      ["learning_rate", 20, 3.3333e-5],
      ["learning_rate", 30, 1.6667e-5],
      ["loss", 10, 2.3456],
      ["loss", 20, 1.9876],
      ["loss", 30, 1.5432],
      ["total_flos", 30, 1.234567e16],
      ["train_loss", 30, 1.9588],
      ["train_runtime", 30, 123.4567],
    ]);
    expect(await metricRows(lfKey)).toEqual([
      ["elapsedS", 10, 62],
      ["elapsedS", 20, 125],
      ["elapsedS", 30, 186],
      ["elapsedS", 40, 248],
      ["epoch", 10, 0.03],
      ["epoch", 20, 0.06],
      ["epoch", 30, 0.09],
      ["epoch", 40, 0.12],
      ["loss", 10, 1.2345],
      ["loss", 20, 1.1111],
      ["loss", 30, Number.NaN],
      ["lr", 10, 4.99e-5],
      ["lr", 20, 4.9e-5],
      ["lr", 30, 4.8e-5],
      ["lr", 40, 4.7e-5],
      ["remainingS", 10, 363_969],
      ["remainingS", 20, 86_400],
      ["remainingS", 30, 434],
      ["remainingS", 40, 372],
      ["throughput", 10, 1234.56],
      ["throughput", 20, 1199],
      ["total_tokens", 10, 123_456],
      ["total_tokens", 20, 246_912],
    ]);

    const runs = await db.query<{
      key: string;
      name: string;
      kind: string;
      status: string;
      total: number | null;
      unit: string | null;
      tags: string[];
    }>(
      `SELECT key, name, kind, status, total, unit, tags FROM "Run" WHERE key = ANY($1::text[]) ORDER BY name`,
      [[hfKey, lfKey]],
    );
    expect(runs.rows).toEqual([
      {
        key: hfKey,
        name: "qwen3-drafter",
        kind: "training",
        status: "succeeded",
        total: 30,
        unit: "steps",
        tags: ["trainlog"],
      },
      {
        key: lfKey,
        name: "sft",
        kind: "training",
        status: "ended",
        total: 100,
        unit: "steps",
        tags: ["trainlog"],
      },
    ]);
    const workers = await db.query<{
      key: string;
      workerId: string;
      done: number;
      total: number;
      unit: string;
    }>(
      `SELECT r.key, w."workerId", w.done, w.total, w.unit FROM "WorkerProgress" w JOIN "Run" r ON r.id = w."runId" WHERE r.key = ANY($1::text[]) ORDER BY w.total`,
      [[hfKey, lfKey]],
    );
    expect(workers.rows).toEqual([
      { key: hfKey, workerId: "import", done: 30, total: 30, unit: "steps" },
      { key: lfKey, workerId: "import", done: 40, total: 100, unit: "steps" },
    ]);

    // Importing the same files again: every frame is a duplicate, nothing in the database moves.
    const before = [await snapshot(hfKey), await snapshot(lfKey)];
    const again = await pitwall(["import", lfFile, hfFile, "--tag", "trainlog"], {
      PITWALL_TOKEN: token,
    });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout.match(/already imported; nothing changed/g)).toHaveLength(2);
    expect([await snapshot(hfKey), await snapshot(lfKey)]).toEqual(before);
  });

  test("a log two writers wrote, cut mid-run: the summary counts the repeated steps; the run ends 'ended', shown as such by the API", async () => {
    const file = path.join(
      projectDir,
      "lib",
      "importers",
      "testdata",
      "llamafactory-two-writers",
      "trainer_log.jsonl",
    );
    const res = await pitwall(["import", file, "--tag", "two-writers"], { PITWALL_TOKEN: token });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("step 200/300");
    expect(res.stdout).toContain(
      "ended at its last logged step (before its planned steps; outcome unknown); 149 steps logged twice (84 with different values); later values kept",
    );
    const key = runKeyOf(res.stdout, "trainer_log.jsonl");
    const row = await db.query<{ status: string; endedAt: Date | null }>(
      `SELECT status, "endedAt" FROM "Run" WHERE key = $1`,
      [key],
    );
    expect(row.rows[0]?.status).toBe("ended");
    expect(row.rows[0]?.endedAt).not.toBeNull();
    const list = (await (
      await fetch(`${server.url}/api/runs?status=ended&tag=two-writers`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as {
      runs: Array<{ key: string; state: string }>;
    };
    expect(list.runs.map((r) => [r.key, r.state])).toEqual([[key, "ended"]]);
    // the second writer's loss is the one stored where the two differ
    const lossRows = await metricRows(key);
    expect(lossRows.filter(([k]) => k === "loss")).toHaveLength(200);
  });
});
