import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fixturesDir } from "@/lib/importers/testing";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// `npx pitwall import --scenario long-context` as a user runs it (bin/pitwall.mjs), against the
// real server: the stored points carry the scenario the run page charts by context length.

const run = promisify(execFile);
const projectDir = path.resolve(import.meta.dirname, "..");
const llamaFile = path.join(fixturesDir, "sglang-bench-serving", "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl");

let server: TestServer;
let databaseUrl: string;
let token: string;

async function pitwall(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(projectDir, "bin", "pitwall.mjs"), ...args], {
      cwd: projectDir,
      env: { ...process.env, DATABASE_URL: databaseUrl, PITWALL_URL: server.url, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function pointsOf(tag: string): Promise<Array<{ key: string; scenario: string }>> {
  const headers = { authorization: `Bearer ${token}` };
  const list = (await (await fetch(`${server.url}/api/runs?tag=${tag}`, { headers })).json()) as { runs: Array<{ id: number }> };
  expect(list.runs).toHaveLength(1);
  const detail = (await (await fetch(`${server.url}/api/runs/${list.runs[0]!.id}`, { headers })).json()) as { benchmarkPoints: Array<{ key: string; scenario: string }> };
  return detail.benchmarkPoints;
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl });
  const created = await pitwall(["token", "create", "scenario-host"]);
  expect(created.code).toBe(0);
  token = created.stdout.trim().split("\n").at(-1)!;
});

afterAll(async () => {
  await server?.stop();
});

describe("pitwall import --scenario", () => {
  test("stores every point as long-context; importing again without it re-labels the same points", async () => {
    const res = await pitwall(["import", llamaFile, "--scenario", "long-context", "--tag", "lc"], { PITWALL_TOKEN: token });
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

  test("an unknown scenario is a usage error naming the choices; nothing is sent", async () => {
    const res = await pitwall(["import", llamaFile, "--scenario", "prefill", "--tag", "bad-scenario"], { PITWALL_TOKEN: token });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("throughput, long-context");
    const list = (await (await fetch(`${server.url}/api/runs?tag=bad-scenario`, { headers: { authorization: `Bearer ${token}` } })).json()) as { runs: unknown[] };
    expect(list.runs).toEqual([]);
  });
});
