import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { fixturesDir } from "@/lib/importers/testing";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// `npx pitwall import --scenario long-context` as a user runs it (bin/pitwall.mjs), against the
// real server: the stored points carry the scenario the run page charts by context length.

const run = promisify(execFile);
const projectDir = path.resolve(import.meta.dirname, "..");
const llamaFile = path.join(
  fixturesDir,
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
);

/** A copy of the fixture with `blankLines` extra blank lines: other content, so a run of its own (same 7 points). */
const tempDirs: string[] = [];
async function copyOfLlama(blankLines: number): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-relabel-"));
  tempDirs.push(dir);
  const file = path.join(dir, path.basename(llamaFile));
  await fs.writeFile(file, (await fs.readFile(llamaFile, "utf8")) + "\n".repeat(blankLines));
  return file;
}

let server: TestServer;
let databaseUrl: string;
let token: string;

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

async function runOf(tag: string): Promise<{
  id: number;
  name: string;
  status: string;
  benchmarkPoints: Array<{ key: string; scenario: string }>;
}> {
  const headers = { authorization: `Bearer ${token}` };
  const list = (await (await fetch(`${server.url}/api/runs?tag=${tag}`, { headers })).json()) as {
    runs: Array<{ id: number }>;
  };
  expect(list.runs).toHaveLength(1);
  return (await (
    await fetch(`${server.url}/api/runs/${list.runs[0]!.id}`, { headers })
  ).json()) as Awaited<ReturnType<typeof runOf>>;
}

async function pointsOf(tag: string): Promise<Array<{ key: string; scenario: string }>> {
  return (await runOf(tag)).benchmarkPoints;
}

const scenariosOf = async (tag: string) => new Set((await pointsOf(tag)).map((p) => p.scenario));

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl });
  const created = await pitwall(["token", "create", "scenario-host"]);
  expect(created.code).toBe(0);
  token = created.stdout.trim().split("\n").at(-1)!;
});

afterAll(async () => {
  await server?.stop();
  for (const dir of tempDirs) await fs.rm(dir, { recursive: true, force: true });
});

describe("pitwall import --scenario", () => {
  test("stores every point as long-context; importing again without it re-labels the same points", async () => {
    const res = await pitwall(["import", llamaFile, "--scenario", "long-context", "--tag", "lc"], {
      PITWALL_TOKEN: token,
    });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("7 long-context points");
    const long = await pointsOf("lc");
    expect(long).toHaveLength(7);
    expect(new Set(long.map((p) => p.scenario))).toEqual(new Set(["long-context"]));

    const again = await pitwall(["import", llamaFile, "--tag", "lc"], { PITWALL_TOKEN: token });
    expect(again.code).toBe(0);
    const plain = await pointsOf("lc");
    expect(plain.map((p) => p.key).sort()).toEqual(long.map((p) => p.key).sort());
    expect(new Set(plain.map((p) => p.scenario))).toEqual(new Set(["throughput"]));
  });

  test("re-importing with an earlier scenario or name again re-labels and says what changed; a re-import without change stays a no-op", async () => {
    const env = { PITWALL_TOKEN: token };
    const file = await copyOfLlama(1);
    const args = (...more: string[]) => ["import", file, "--tag", "relabel", ...more];
    const pitwallAs = (a: string[]) => pitwall(a, env);
    expect((await pitwallAs(args("--scenario", "long-context", "--name", "A"))).code).toBe(0);
    const plain = await pitwallAs(args("--name", "B"));
    expect(plain.stdout).toContain(
      `(re-labelled: name "A" → "B", 7 points long-context → throughput)`,
    );
    expect(await scenariosOf("relabel")).toEqual(new Set(["throughput"]));
    // Back to the first labels: their frames were sent before, yet the run follows the file again.
    const back = await pitwallAs(args("--scenario", "long-context", "--name", "A"));
    expect(back.stderr).toBe("");
    expect(back.code).toBe(0);
    expect(back.stdout).toContain(
      `(re-labelled: name "B" → "A", 7 points throughput → long-context)`,
    );
    const run = await runOf("relabel");
    expect(run.name).toBe("A");
    expect(run.status).toBe("succeeded");
    expect(new Set(run.benchmarkPoints.map((p) => p.scenario))).toEqual(new Set(["long-context"]));
    const same = await pitwallAs(args("--scenario", "long-context", "--name", "A"));
    expect(same.stdout, same.stdout + same.stderr).toContain("(already imported; nothing changed)");
    expect(same.stdout).not.toContain("re-labelled");
  });

  test("a person's edit of the name wins over a re-import; the point scenario still follows the file", async () => {
    const env = { PITWALL_TOKEN: token };
    const file = await copyOfLlama(2);
    expect(
      (await pitwall(["import", file, "--tag", "edited", "--name", "from the file"], env)).code,
    ).toBe(0);
    const { id } = await runOf("edited");
    // What PATCH /api/runs/:id does when an approver renames the run on its page.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      await db.query(
        `UPDATE "Run" SET name = 'Qwen sweep (checked)', "editedAt" = now(), "editedBy" = 'alice@example.com' WHERE id = $1`,
        [id],
      );
    } finally {
      await db.end();
    }
    const again = await pitwall(
      [
        "import",
        file,
        "--tag",
        "edited",
        "--name",
        "renamed by the file",
        "--scenario",
        "long-context",
      ],
      env,
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `re-labelled: 7 points throughput → long-context; name "Qwen sweep (checked)" kept (edited by alice@example.com on the web; a person's edit wins over "renamed by the file")`,
    );
    const run = await runOf("edited");
    expect(run.name).toBe("Qwen sweep (checked)");
    expect(new Set(run.benchmarkPoints.map((p) => p.scenario))).toEqual(new Set(["long-context"]));
  });

  test("an unknown scenario is a usage error naming the choices; nothing is sent", async () => {
    const res = await pitwall(
      ["import", llamaFile, "--scenario", "prefill", "--tag", "bad-scenario"],
      { PITWALL_TOKEN: token },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("throughput, long-context");
    const list = (await (
      await fetch(`${server.url}/api/runs?tag=bad-scenario`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { runs: unknown[] };
    expect(list.runs).toEqual([]);
  });
});
