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

import { freePort, startPython, venvPython } from "./python-process";

// Issue 24's "a SIGKILL of a tiny HF Trainer job loses nothing": a real Trainer (tiny random
// GPT-2 on CPU, PitwallCallback as its only Pitwall line) is killed with SIGKILL mid-training,
// once while Pitwall is down and once while it is up, then started again with the same run key,
// resuming from its last checkpoint. Every logged step must be stored exactly once: the steps the
// killed process logged and the resumed one does not log again reach Pitwall only through the
// killed process's spool.

let databaseUrl: string;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
let dir: string;
let python: string;
const servers: TestServer[] = [];

beforeAll(async () => {
  python = venvPython(); // fails (not skips) with how to create it when missing
  databaseUrl = await createTestDatabase();
  db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "gpu-trainer-kill-py")).token;
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-py-trainer-kill-"));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await prisma?.$disconnect();
  await db?.end();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

// The job: 30 optimizer steps, a log at every step, a checkpoint every 10. `PAUSE_AT` names the
// point where the test kills it: "save:10" blocks right after checkpoint-10 was saved (and
// reported), "log:15" right after step 15 was logged (five steps past the checkpoint). Before
// blocking it prints every train loss the Trainer logged so far (what PitwallCallback was given).
// The `Pause` callback is the test's instrument, not Pitwall code.
const JOB = `
import json, os, sys
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments
from transformers.trainer_utils import get_last_checkpoint
from pitwall.transformers import PitwallCallback
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=16, bos_token_id=0, eos_token_id=0))

class Tokens(torch.utils.data.Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randint(0, 64, (n, 16), generator=g)
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return {"input_ids": self.x[i], "labels": self.x[i]}

PAUSE = os.environ.get("PAUSE_AT", "")
class Pause(TrainerCallback):
    def __init__(self):
        self.losses = {}
    def _maybe_pause(self, event, step):
        if PAUSE == "{}:{}".format(event, step):
            print(json.dumps({"paused": step, "losses": self.losses}), flush=True)
            sys.stdin.readline()  # killed here
    def on_log(self, args, state, control, logs=None, **kw):
        if logs and "loss" in logs:
            self.losses[str(state.global_step)] = logs["loss"]
        self._maybe_pause("log", state.global_step)
    def on_save(self, args, state, control, **kw):
        self._maybe_pause("save", state.global_step)

out = sys.argv[1]
args = TrainingArguments(output_dir=out, max_steps=30, per_device_train_batch_size=4, logging_steps=1,
                         save_steps=10, eval_strategy="no", report_to=[], use_cpu=True, disable_tqdm=True,
                         run_name="tiny-gpt2 killed", learning_rate=1e-3, seed=0)
pause = Pause()
trainer = Trainer(model=model, args=args, train_dataset=Tokens(160),
                  callbacks=[PitwallCallback(key=os.environ["RUN_KEY"]), pause])
resume = get_last_checkpoint(out) if os.path.isdir(out) else None
trainer.train(resume_from_checkpoint=resume)
print(json.dumps({"done": True, "resumedFrom": resume, "losses": pause.losses}), flush=True)
`;

async function runOf(key: string): Promise<{ id: string; status: string }> {
  const rows = (await db.query(`SELECT id, status FROM "Run" WHERE key = $1`, [key])).rows;
  expect(rows, `run ${key}`).toHaveLength(1);
  return rows[0];
}

describe("PitwallCallback: SIGKILL of a Trainer job and a restart with the same run key", () => {
  test.each([
    { pitwall: "down", pauseAt: "save:10", killedAt: 10 },
    { pitwall: "up", pauseAt: "log:15", killedAt: 15 },
  ])(
    "killed at step $killedAt while Pitwall is $pitwall, resumed from checkpoint-10: every step once",
    { timeout: 600_000 },
    async ({ pitwall, pauseAt, killedAt }) => {
      const key = `py-hf-kill-${pitwall}-${randomUUID()}`;
      const port = await freePort();
      const out = path.join(dir, `out-${pitwall}`);
      const env = {
        PITWALL_URL: `http://127.0.0.1:${port}`,
        PITWALL_TOKEN: token,
        PITWALL_SPOOL_DIR: path.join(dir, `spool-${pitwall}`),
        RUN_KEY: key,
      };
      if (pitwall === "up") servers.push(await startTestServer({ databaseUrl, port }));

      const first = await startPython(dir, JOB, { ...env, PAUSE_AT: pauseAt }, python, [out]);
      const paused = (await first.next(480_000)) as {
        paused: number;
        losses: Record<string, number>;
      };
      expect(paused.paused).toBe(killedAt);
      first.child.kill("SIGKILL");
      expect((await first.exited).signal).toBe("SIGKILL");
      const loggedByKilled = paused.losses;
      expect(Object.keys(loggedByKilled).map(Number)).toEqual(
        Array.from({ length: killedAt }, (_, i) => i + 1),
      );
      if (pitwall === "down") {
        // Nothing reached Pitwall: everything the killed job logged is in its spool only.
        expect((await db.query(`SELECT 1 FROM "Run" WHERE key = $1`, [key])).rowCount).toBe(0);
        servers.push(await startTestServer({ databaseUrl, port }));
      }

      const second = await startPython(dir, JOB, env, python, [out]);
      const done = (await second.next(480_000)) as {
        resumedFrom: string;
        losses: Record<string, number>;
      };
      const { code, stderr } = await second.exited;
      expect(code, stderr).toBe(0);
      expect(done.resumedFrom).toBe(path.join(out, "checkpoint-10"));
      expect(Object.keys(done.losses).map(Number)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 11),
      );
      if (pitwall === "down")
        expect(stderr).toMatch(/resending \d+ frame\(s\) left in .* by an earlier process/);

      const run = await runOf(key);
      expect(run.status).toBe("succeeded");
      // Steps 1..30 once each; 1..10 were logged only by the killed process (resumed at 11), so
      // their values are the ones it logged; 11..30 are the resumed process's.
      const loss = (
        await db.query(
          `SELECT step::int AS step, value FROM "MetricPoint" WHERE "runId" = $1 AND key = 'train/loss' ORDER BY step`,
          [run.id],
        )
      ).rows as Array<{ step: number; value: number }>;
      expect(loss.map((r) => r.step)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      for (const r of loss)
        expect(r.value, `train/loss at step ${r.step}`).toBe(
          r.step <= 10 ? loggedByKilled[String(r.step)] : done.losses[String(r.step)],
        );
      // The other logged keys at every step too.
      const perKey = (
        await db.query(
          `SELECT key, count(*)::int AS n, min(step)::int AS lo, max(step)::int AS hi FROM "MetricPoint" WHERE "runId" = $1 AND key IN ('train/learning_rate', 'train/grad_norm') GROUP BY key ORDER BY key`,
          [run.id],
        )
      ).rows;
      expect(perKey).toEqual([
        { key: "train/grad_norm", n: 30, lo: 1, hi: 30 },
        { key: "train/learning_rate", n: 30, lo: 1, hi: 30 },
      ]);
      // One "training arguments" event per process: a lost spool shows 1, a frame applied twice 3.
      const events = (
        await db.query(
          `SELECT count(*)::int AS n FROM "RunEvent" WHERE "runId" = $1 AND message LIKE 'training arguments:%'`,
          [run.id],
        )
      ).rows[0];
      expect(events).toEqual({ n: 2 });
      const artifacts = (
        await db.query(
          `SELECT uri, step::int AS step FROM "Artifact" WHERE "runId" = $1 ORDER BY step`,
          [run.id],
        )
      ).rows;
      expect(artifacts).toEqual(
        [10, 20, 30].map((s) => ({ uri: path.join(out, `checkpoint-${s}`), step: s })),
      );
      const workers = (
        await db.query(`SELECT done, total FROM "WorkerProgress" WHERE "runId" = $1`, [run.id])
      ).rows;
      expect(workers).toEqual([{ done: 30, total: 30 }]);
      // Everything acknowledged: the spool holds nothing.
      expect(await fs.readdir(env.PITWALL_SPOOL_DIR)).toEqual([]);
    },
  );
});
