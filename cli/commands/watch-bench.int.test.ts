import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { fixture } from "@/lib/importers/testing";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// `pitwall watch bench FILE` and `pitwall run --kind benchmark --follow FILE` against the real
// server: result lines of a real SGLang bench_serving output appended over time become points as
// they arrive, a half-written line waits for its newline, and a restarted watcher adds nothing twice.

const projectDir = path.resolve(import.meta.dirname, "../..");
const bin = path.join(projectDir, "bin", "pitwall.mjs");
const sweep = fixture(
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
)
  .text.split("\n")
  .filter(Boolean);

let server: SharedTestServer;
let db: pg.Pool;
let prisma: PrismaClient;
let token: string;
const children: ChildProcess[] = [];
let tmp: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  db = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }) });
  token = (await createToken(prisma, "bench-host")).token;
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-watch-bench-"));
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL"); // a failed test's watcher
  await prisma?.$disconnect();
  await db?.end();
});

function startPitwall(args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: projectDir,
    // Default state files go under the test's temp folder, not the user's ~/.local/state.
    env: { ...process.env, PITWALL_URL: server.url, PITWALL_TOKEN: token, XDG_STATE_HOME: tmp },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const out = { stderr: "" };
  child.stderr.on("data", (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  return { child, out, exited };
}

async function until(
  pred: () => Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Points of the run(s) named `name`: [ord, output tok/s] in order, and the row count. */
async function pointsOf(where: {
  name?: string;
  key?: string;
}): Promise<{ ords: number[]; tokPerS: number[]; runs: number; status: string[] }> {
  const cond = where.key ? `r.key = $1` : `r.name = $1`;
  const res = await db.query<{ ord: number; tok: number }>(
    `SELECT p.ord, p."outputTokPerS" AS tok FROM "BenchmarkPoint" p JOIN "Run" r ON r.id = p."runId" WHERE ${cond} ORDER BY p.ord`,
    [where.key ?? where.name],
  );
  const runs = await db.query<{ status: string }>(`SELECT status FROM "Run" r WHERE ${cond}`, [
    where.key ?? where.name,
  ]);
  return {
    ords: res.rows.map((r) => r.ord),
    tokPerS: res.rows.map((r) => r.tok),
    runs: runs.rowCount ?? 0,
    status: runs.rows.map((r) => r.status),
  };
}

const tok = (line: string) => (JSON.parse(line) as { output_throughput: number }).output_throughput;

describe("pitwall watch bench", () => {
  test(
    "points appear line by line; a half-written line waits; a restarted watcher adds nothing twice",
    { timeout: 120_000 },
    async () => {
      const name = `live sweep ${randomUUID()}`;
      const file = path.join(tmp, `sweep-${randomUUID()}.jsonl`);
      // --no-state: a restart reads the whole file again (the path without a state file).
      const args = ["watch", "bench", file, "--name", name, "--poll-interval", "100", "--no-state"];
      let watcher = startPitwall(args); // the file does not exist yet
      await until(async () => watcher.out.stderr.includes("watching"), "the watcher to start");

      await fs.appendFile(file, `${sweep[0]}\n`);
      await until(async () => (await pointsOf({ name })).ords.length === 1, "the first point");
      expect(await pointsOf({ name })).toMatchObject({
        ords: [1],
        tokPerS: [tok(sweep[0]!)],
        runs: 1,
        status: ["running"],
      });
      const stall = await db.query(`SELECT "stallAfterS" FROM "Run" WHERE name = $1`, [name]);
      expect(stall.rows).toEqual([{ stallAfterS: 3600 }]);

      // Half of line 2: nothing new, however long we wait (polls every 100 ms).
      const half = Math.floor(sweep[1]!.length / 2);
      await fs.appendFile(file, sweep[1]!.slice(0, half));
      await new Promise((r) => setTimeout(r, 1500));
      expect((await pointsOf({ name })).ords).toEqual([1]);
      expect(watcher.out.stderr).not.toMatch(/:2: /);
      await fs.appendFile(file, `${sweep[1]!.slice(half)}\n`);
      await until(
        async () => (await pointsOf({ name })).ords.length === 2,
        "the completed second line",
      );

      await fs.appendFile(file, `${sweep[2]}\n`);
      await until(async () => (await pointsOf({ name })).ords.length === 3, "the third point");
      expect(watcher.out.stderr).toContain(
        `:3: request rate 4/s: ${tok(sweep[2]!).toFixed(1)} output tok/s`,
      );

      watcher.child.kill("SIGTERM");
      expect(await watcher.exited).toBe(0);
      expect(await pointsOf({ name })).toMatchObject({ ords: [1, 2, 3], status: ["succeeded"] });

      // Lines written while no watcher ran, then a restart: the whole file is read again, and the
      // three points already stored come back as the same frames (deduplicated), not as new rows.
      for (const line of sweep.slice(3)) await fs.appendFile(file, `${line}\n`);
      watcher = startPitwall(args);
      await until(
        async () => (await pointsOf({ name })).ords.length === sweep.length,
        "the rest of the sweep",
      );
      watcher.child.kill("SIGTERM");
      expect(await watcher.exited).toBe(0);
      const after = await pointsOf({ name });
      expect(after).toEqual({
        ords: sweep.map((_, i) => i + 1),
        tokPerS: sweep.map(tok),
        runs: 1,
        status: ["succeeded"],
      });
      expect(watcher.out.stderr).toContain(`${sweep.length} point(s) from ${file}`);
    },
  );

  test(
    "kill -9 of the watcher mid-sweep, then a restart: it continues from its state file; every level once, a half-written line waits",
    { timeout: 120_000 },
    async () => {
      const name = `killed watcher ${randomUUID()}`;
      const file = path.join(tmp, `sweep-${randomUUID()}.jsonl`);
      const state = path.join(tmp, `state-${randomUUID()}.json`);
      const args = [
        "watch",
        "bench",
        file,
        "--name",
        name,
        "--poll-interval",
        "100",
        "--state",
        state,
      ];
      const savedLines = async () => {
        try {
          return (JSON.parse(await fs.readFile(state, "utf8")) as { tail: { lines: number } }).tail
            .lines;
        } catch {
          return 0;
        }
      };
      let watcher = startPitwall(args);
      await until(async () => watcher.out.stderr.includes("watching"), "the watcher to start");
      for (const line of sweep.slice(0, 3)) await fs.appendFile(file, `${line}\n`);
      await until(async () => (await pointsOf({ name })).ords.length === 3, "three points");
      // The position is saved once the server acknowledged the points.
      await until(async () => (await savedLines()) === 3, "the state file at line 3");
      const half4 = Math.floor(sweep[3]!.length / 2);
      await fs.appendFile(file, sweep[3]!.slice(0, half4));
      await new Promise((r) => setTimeout(r, 500));
      watcher.child.kill("SIGKILL");
      await watcher.exited;
      expect((await pointsOf({ name })).ords).toEqual([1, 2, 3]);

      // The sweep goes on while no watcher runs: line 4 completed, line 5, half of line 6.
      const half6 = Math.floor(sweep[5]!.length / 2);
      await fs.appendFile(
        file,
        `${sweep[3]!.slice(half4)}\n${sweep[4]}\n${sweep[5]!.slice(0, half6)}`,
      );
      watcher = startPitwall(args);
      await until(async () => (await pointsOf({ name })).ords.length === 5, "lines 4 and 5");
      expect(watcher.out.stderr).toContain(
        `continuing from ${state} (line 3, 3 point(s) sent before)`,
      );
      // Only the lines after the saved position were read: no line 1..3 was sent again.
      expect(watcher.out.stderr).not.toMatch(/\.jsonl:[123]: /);
      expect(watcher.out.stderr).toMatch(/\.jsonl:4: /);
      await new Promise((r) => setTimeout(r, 1500)); // half of line 6 waits for its end
      expect((await pointsOf({ name })).ords).toEqual([1, 2, 3, 4, 5]);
      await fs.appendFile(file, `${sweep[5]!.slice(half6)}\n${sweep[6]}\n`);
      await until(async () => (await pointsOf({ name })).ords.length === 7, "lines 6 and 7");
      watcher.child.kill("SIGTERM");
      expect(await watcher.exited).toBe(0);
      expect(watcher.out.stderr).toContain(`${sweep.length} point(s) from ${file}`);
      expect(await pointsOf({ name })).toEqual({
        ords: sweep.map((_, i) => i + 1),
        tokPerS: sweep.map(tok),
        runs: 1,
        status: ["succeeded"],
      });
      expect(await savedLines()).toBe(7);
      // One row per level (line) of the sweep, the same run throughout.
      const perLine = await db.query<{ ord: number; n: number }>(
        `SELECT p.ord, count(*)::int AS n FROM "BenchmarkPoint" p JOIN "Run" r ON r.id = p."runId" WHERE r.name = $1 GROUP BY p.ord ORDER BY p.ord`,
        [name],
      );
      expect(perLine.rows).toEqual(sweep.map((_, i) => ({ ord: i + 1, n: 1 })));
    },
  );

  test(
    "vLLM bench serve --append-result (newline before each next result): every result is imported, the last one too",
    { timeout: 60_000 },
    async () => {
      const vllm = fixture("vllm-bench-serve", "nerdalert_2025-05_benchmark_serving_results.jsonl")
        .text.split("\n")
        .filter(Boolean)
        .slice(0, 3);
      const name = `vllm live ${randomUUID()}`;
      const file = path.join(tmp, `vllm-${randomUUID()}.jsonl`);
      const watcher = startPitwall([
        "watch",
        "bench",
        file,
        "--name",
        name,
        "--poll-interval",
        "100",
      ]);
      await until(async () => watcher.out.stderr.includes("watching"), "the watcher to start");
      // What vLLM does: `if append and tell() != 0: write("\n")`, then json.dump(result).
      for (const [i, line] of vllm.entries()) {
        await fs.appendFile(file, `${i > 0 ? "\n" : ""}${line}`);
        await until(
          async () => (await pointsOf({ name })).ords.length === i + 1,
          `vLLM result ${i + 1} without its newline`,
        );
      }
      watcher.child.kill("SIGTERM");
      expect(await watcher.exited).toBe(0);
      expect(await pointsOf({ name })).toEqual({
        ords: [1, 2, 3],
        tokPerS: vllm.map(tok),
        runs: 1,
        status: ["succeeded"],
      });
    },
  );

  test(
    "`pitwall run --kind benchmark --follow FILE`: the command's appended lines are points of its run; lines already there are not",
    { timeout: 120_000 },
    async () => {
      const key = `follow-${randomUUID()}`;
      const file = path.join(tmp, `run-${randomUUID()}.jsonl`);
      await fs.writeFile(file, `${sweep[6]}\n`); // an earlier sweep's line
      const script = path.join(tmp, `bench-${randomUUID()}.mjs`);
      await fs.writeFile(
        script,
        `import fs from "node:fs";\nconst lines = ${JSON.stringify(sweep.slice(0, 4))};\n` +
          `for (const l of lines) { fs.appendFileSync(${JSON.stringify(file)}, l + "\\n"); await new Promise((r) => setTimeout(r, 400)); }\n`,
      );
      const run = startPitwall([
        "run",
        "--kind",
        "benchmark",
        "--name",
        "follow sweep",
        "--key",
        key,
        "--follow",
        file,
        "--",
        process.execPath,
        script,
      ]);
      await until(
        async () => (await pointsOf({ key })).ords.length >= 1,
        "a point while the command runs",
      );
      expect((await pointsOf({ key })).status).toEqual(["running"]);
      expect(await run.exited).toBe(0);
      expect(await pointsOf({ key })).toEqual({
        ords: [2, 3, 4, 5],
        tokPerS: sweep.slice(0, 4).map(tok),
        runs: 1,
        status: ["succeeded"],
      });

      const bad = startPitwall([
        "run",
        "--kind",
        "training",
        "--name",
        "x",
        "--follow",
        file,
        "--",
        "true",
      ]);
      expect(await bad.exited).toBe(2);
      expect(bad.out.stderr).toContain("--follow needs --kind benchmark");
    },
  );
});
