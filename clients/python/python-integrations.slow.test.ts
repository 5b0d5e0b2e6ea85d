import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

import { clientDir, startPython, venvPython } from "./python-process";

// The Python client's integrations with the real libraries (from .venv-test, pinned in
// clients/python/requirements-test.txt) against the real server and PostgreSQL: tqdm bars
// (nested ones as workers, postfix numbers as counters) and a real HF Transformers Trainer
// training a tiny randomly initialised GPT-2 on CPU.

let databaseUrl: string;
let server: TestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let dir: string;
let python: string;

beforeAll(async () => {
  python = venvPython(); // fails (not skips) with how to create it when missing
  databaseUrl = await createTestDatabase();
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "gpu-integrations-py")).token;
  server = await startTestServer({ databaseUrl });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-py-integrations-"));
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await db?.end();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PITWALL_URL: server.url,
    PITWALL_TOKEN: token,
    PITWALL_SPOOL_DIR: path.join(dir, "spool"),
    ...extra,
  };
}

async function runRow(key: string): Promise<{
  id: number;
  status: string;
  total: number | null;
  unit: string | null;
  config: Record<string, unknown>;
  name: string;
}> {
  const rows = (
    await db.query(`SELECT id, status, total, unit, config, name FROM "Run" WHERE key = $1`, [key])
  ).rows;
  expect(rows, `run ${key}`).toHaveLength(1);
  return rows[0];
}

describe("python integrations", () => {
  test(
    "pitwall.tqdm: the outer bar is the run's progress, a nested bar a worker, postfix numbers counters; patch() covers tqdm.auto",
    { timeout: 180_000 },
    async () => {
      const key = `py-tqdm-${randomUUID()}`;
      const py = await startPython(
        dir,
        `
import json, os, time
import pitwall
from pitwall.tqdm import tqdm
pitwall.init(kind="extraction", name="tqdm loop", key=os.environ["RUN_KEY"], min_interval_s=0)
uploaded = 0
for shard in tqdm(range(3), desc="shards", unit="shard", initial=2, total=5, mininterval=0):
    bar = tqdm(range(10), desc="files", unit="file", leave=False, mininterval=0)
    for f in bar:
        uploaded += 1
        bar.set_postfix(uploaded=uploaded, inflight=1)
pitwall.tqdm.patch()
from tqdm.auto import tqdm as auto_tqdm
assert auto_tqdm is pitwall.tqdm.tqdm
for _ in auto_tqdm(range(7), desc="patched", mininterval=0):
    pass
pitwall.tqdm.unpatch()
import tqdm.auto
assert tqdm.auto.tqdm is not pitwall.tqdm.tqdm
print(json.dumps({"worker": pitwall.current_run().worker_id, "ok": pitwall.finish(flush_timeout_s=60)}), flush=True)
`,
        env({ RUN_KEY: key }),
        python,
      );
      const out = (await py.next()) as { worker: string; ok: boolean };
      const { code, stderr } = await py.exited;
      expect(code, stderr).toBe(0);
      expect(out.ok).toBe(true);
      const run = await runRow(key);
      expect(run.status).toBe("succeeded");
      const workers = (
        await db.query(
          `SELECT "workerId", done, total, unit, counters FROM "WorkerProgress" WHERE "runId" = $1 ORDER BY "workerId"`,
          [run.id],
        )
      ).rows;
      expect(workers).toEqual([
        // The outer bar: resumed at 2 of 5, three shards done here. The patched bar was opened after it closed: outermost too.
        { workerId: out.worker, done: 7, total: 7, unit: "it", counters: {} },
        {
          workerId: `${out.worker}/files`,
          done: 10,
          total: 10,
          unit: "file",
          counters: expect.objectContaining({ inflight: 1 }),
        },
      ]);
      // The outer bar's readings over time: 2 (at start, resumed), then 3, 4, 5 as shards finish.
      const outer = (
        await db.query(
          `SELECT done FROM "ProgressSample" WHERE "runId" = $1 AND "workerId" = $2 ORDER BY id`,
          [run.id, out.worker],
        )
      ).rows.map((r: { done: number }) => r.done);
      expect(outer.slice(0, 4)).toEqual([2, 3, 4, 5]);
      const metricKeys = (
        await db.query(`SELECT DISTINCT key FROM "MetricPoint" WHERE "runId" = $1 ORDER BY key`, [
          run.id,
        ])
      ).rows.map((r: { key: string }) => r.key);
      expect(metricKeys).toEqual(
        expect.arrayContaining(["tqdm/shards/rate", "tqdm/shards/eta_s", "tqdm/files/rate"]),
      );
    },
  );

  test(
    "PitwallCallback: a real Trainer on a tiny random GPT-2 (CPU): logs, eval metrics, checkpoints, arguments, progress; rank 0 only",
    { timeout: 600_000 },
    async () => {
      const key = `py-hf-${randomUUID()}`;
      const out = path.join(dir, "hf-out");
      const script = `
import json, os, sys
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments, TrainerState
from pitwall.transformers import PitwallCallback
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=16, bos_token_id=0, eos_token_id=0))

class Tokens(torch.utils.data.Dataset):
    def __init__(self, n):
        self.x = torch.randint(0, 64, (n, 16))
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return {"input_ids": self.x[i], "labels": self.x[i]}

args = TrainingArguments(output_dir=sys.argv[1], max_steps=30, per_device_train_batch_size=4, logging_steps=5,
                         eval_strategy="steps", eval_steps=15, save_steps=15, report_to=[], use_cpu=True,
                         disable_tqdm=True, run_name="tiny-gpt2", learning_rate=1e-3)
# A non-main rank (as under torchrun) reports nothing by default.
other = PitwallCallback()
state = TrainerState()
state.is_world_process_zero = False
other.on_train_begin(args, state, None, model=model)
assert other._target() is None
trainer = Trainer(model=model, args=args, train_dataset=Tokens(64), eval_dataset=Tokens(16), callbacks=[PitwallCallback(key=os.environ["RUN_KEY"])])
trainer.train()
print(json.dumps({"done": True}), flush=True)
`;
      const py = await startPython(dir, script, env({ RUN_KEY: key }), python, [out]);
      expect(await py.next(540_000)).toEqual({ done: true });
      const { code, stderr } = await py.exited;
      expect(code, stderr).toBe(0);
      const run = await runRow(key);
      // Ended by the interpreter's exit (the module-level run), with the arguments as config.
      expect(run).toMatchObject({
        status: "succeeded",
        name: "tiny-gpt2",
        total: 30,
        unit: "steps",
      });
      expect(run.config).toMatchObject({
        max_steps: 30,
        learning_rate: 0.001,
        per_device_train_batch_size: 4,
        model: expect.objectContaining({ n_embd: 32, model_type: "gpt2" }),
      });
      const workers = (
        await db.query(`SELECT done, total FROM "WorkerProgress" WHERE "runId" = $1`, [run.id])
      ).rows;
      expect(workers).toEqual([{ done: 30, total: 30 }]);
      const loss = (
        await db.query(
          `SELECT step::int AS step FROM "MetricPoint" WHERE "runId" = $1 AND key = 'train/loss' ORDER BY step`,
          [run.id],
        )
      ).rows.map((r: { step: number }) => r.step);
      expect(loss).toEqual([5, 10, 15, 20, 25, 30]);
      const evalLoss = (
        await db.query(
          `SELECT step::int AS step, value FROM "MetricPoint" WHERE "runId" = $1 AND key = 'eval/loss' ORDER BY step`,
          [run.id],
        )
      ).rows as Array<{ step: number; value: number }>;
      expect(evalLoss.map((r) => r.step)).toEqual([15, 30]);
      expect(evalLoss.every((r) => Number.isFinite(r.value) && r.value > 0)).toBe(true);
      const artifacts = (
        await db.query(
          `SELECT kind, uri, "sizeBytes", step::int AS step FROM "Artifact" WHERE "runId" = $1 ORDER BY step`,
          [run.id],
        )
      ).rows as Array<{ kind: string; uri: string; sizeBytes: number; step: number }>;
      expect(artifacts.map((a) => [a.kind, a.uri, a.step])).toEqual([
        ["checkpoint", path.join(out, "checkpoint-15"), 15],
        ["checkpoint", path.join(out, "checkpoint-30"), 30],
      ]);
      for (const a of artifacts) {
        const files = await fs.readdir(a.uri);
        let size = 0;
        for (const f of files) size += (await fs.stat(path.join(a.uri, f))).size;
        expect(a.sizeBytes).toBe(size);
      }
    },
  );

  test("the package type-checks with mypy (it ships py.typed)", { timeout: 120_000 }, () => {
    // --follow-imports=skip: our own code only (following torch/transformers takes minutes here).
    const r = spawnSync(
      python,
      [
        "-m",
        "mypy",
        "--ignore-missing-imports",
        "--follow-imports=skip",
        "--cache-dir",
        "/dev/null",
        "pitwall",
      ],
      { cwd: clientDir, encoding: "utf8" },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Success: no issues found in \d+ source files/);
  });
});
