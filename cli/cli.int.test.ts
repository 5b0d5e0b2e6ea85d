import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";

import { fixturesDir } from "@/lib/importers/testing";
import { parseLenientJson } from "@/lib/protocol";
import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// The CLI as a user runs it (`npx pitwall …` → bin/pitwall.mjs), against the real server.

const run = promisify(execFile);
// Each test runs the CLI several times (a node + tsx start each, 5-10 s apiece on a busy 2-core
// machine, and one starts an embedded PostgreSQL): the default 30 s cut them off under load.
vi.setConfig({ testTimeout: 120_000 });
const projectDir = path.resolve(import.meta.dirname, "..");
const llamaFile = path.join(
  fixturesDir,
  "sglang-bench-serving",
  "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl",
);

let server: TestServer;
let databaseUrl: string;
let token: string;

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

/** GETs an API read with the worker token (reads need a session or a token). */
async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

interface RunRow {
  id: number;
  name: string;
  host: string;
  tags: string[];
  peakOutputTokPerS: number | null;
  pointCount: number;
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  server = await startTestServer({ databaseUrl });
});

afterAll(async () => {
  await server?.stop();
});

describe("pitwall token create", () => {
  test("prints a working token as its last line", async () => {
    const res = await pitwall(["token", "create", "cli-host"]);
    expect(res.code).toBe(0);
    token = res.stdout.trim().split("\n").at(-1)!;
    expect(token).toMatch(/^pw_[A-Za-z0-9_-]{20,}$/);
    const ingest = await fetch(`${server.url}/api/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify([{ v: 1, id: "hello-1", type: "hello" }]),
    });
    expect(ingest.status).toBe(200);
  });

  test("with no DATABASE_URL and no running server, starts the embedded database itself", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-cli-data-"));
    const env = { DATABASE_URL: "", PITWALL_DATA_DIR: dataDir };
    const created = await pitwall(["token", "create", "standalone-host"], env);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain("starting it for this command");
    const listed = await pitwall(["token", "list"], env);
    expect(listed.stdout).toContain("standalone-host");
    // It stopped the database it started: no live connection file remains.
    await expect(fs.access(path.join(dataDir, "connection.json"))).rejects.toThrow();
  });

  test("--shared makes a token that may write to another host's run; `token list` shows the scope", async () => {
    const owner = (await pitwall(["token", "create", "run-owner"])).stdout
      .trim()
      .split("\n")
      .at(-1)!;
    const created = await pitwall(["token", "create", "bench-client", "--shared"]);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain("(shared:");
    const shared = created.stdout.trim().split("\n").at(-1)!;
    const own = (await pitwall(["token", "create", "other-host"])).stdout
      .trim()
      .split("\n")
      .at(-1)!;
    const push = async (secret: string, frames: unknown[]) => {
      const res = await fetch(`${server.url}/api/ingest`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}` },
        body: JSON.stringify(frames),
      });
      return ((await res.json()) as { results: Array<{ ok: boolean; code?: string }> }).results.map(
        (r) => (r.ok ? "ok" : r.code),
      );
    };
    const run = `cli-shared-${Date.now()}`;
    expect(
      await push(owner, [
        { v: 1, id: `${run}-start`, type: "run.start", run, name: "owned", kind: "benchmark" },
      ]),
    ).toEqual(["ok"]);
    expect(
      await push(own, [{ v: 1, id: `${run}-end-own`, type: "run.end", run, status: "failed" }]),
    ).toEqual(["forbidden"]);
    expect(
      await push(shared, [
        { v: 1, id: `${run}-end-shared`, type: "run.end", run, status: "succeeded" },
      ]),
    ).toEqual(["ok"]);

    const listed = (await pitwall(["token", "list"])).stdout.split("\n");
    expect(listed.find((l) => l.includes("\tbench-client\t"))).toContain("\tshared\t");
    expect(listed.find((l) => l.includes("\tother-host\t"))).toContain("\town\t");
  });

  test("rejects an invalid host name with a usage error", async () => {
    const res = await pitwall(["token", "create", "bad host!"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("invalid host name");
  });
});

describe("pitwall import", () => {
  test("the SGLang llama fixture becomes one run with 7 points and the file's peak output tok/s", async () => {
    const text = await fs.readFile(llamaFile, "utf8");
    const rows = text
      .trim()
      .split("\n")
      .map((l) => parseLenientJson(l) as { output_throughput: number });
    const filePeak = Math.max(...rows.map((r) => r.output_throughput));

    const res = await pitwall(["import", llamaFile, "--tag", "llama70b"], { PITWALL_TOKEN: token });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("7 points");

    const { runs } = await getJson<{ runs: RunRow[] }>(`${server.url}/api/runs?tag=llama70b`);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.pointCount).toBe(7);
    expect(runs[0]!.peakOutputTokPerS).toBe(filePeak);
    expect(runs[0]!.host).toBe("cli-host");

    const detail = await getJson<{
      benchmarkPoints: Array<{ requestRate: number; outputTokPerS: number; ttftMsMedian: number }>;
    }>(`${server.url}/api/runs/${runs[0]!.id}`);
    expect(detail.benchmarkPoints).toHaveLength(7);
    expect(detail.benchmarkPoints.map((p) => p.requestRate).sort((a, b) => a - b)).toEqual(
      rows
        .map((r) => (r as unknown as { request_rate: number }).request_rate)
        .sort((a, b) => a - b),
    );

    // Renaming on re-import updates the run in place and it still ends (not stuck "running").
    const renamed = await pitwall(
      ["import", llamaFile, "--tag", "llama70b", "--name", "Llama 3.3 70B online"],
      { PITWALL_TOKEN: token },
    );
    expect(renamed.code).toBe(0);
    const afterRename = await getJson<{ runs: Array<RunRow & { state: string }> }>(
      `${server.url}/api/runs?tag=llama70b`,
    );
    expect(afterRename.runs.map((r) => [r.name, r.state, r.pointCount])).toEqual([
      ["Llama 3.3 70B online", "succeeded", 7],
    ]);

    // Importing the same file again creates nothing new.
    const again = await pitwall(
      ["import", llamaFile, "--tag", "llama70b", "--name", "Llama 3.3 70B online"],
      { PITWALL_TOKEN: token },
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already imported");
    const after = await getJson<{ runs: RunRow[] }>(`${server.url}/api/runs?tag=llama70b`);
    expect(after.runs).toHaveLength(1);
    expect(after.runs[0]!.pointCount).toBe(7);
  });

  test("a bad line is reported with file and line; the good lines are imported; exit code 1", async () => {
    const lines = (await fs.readFile(llamaFile, "utf8")).trim().split("\n");
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-cli-"));
    const file = path.join(dir, "broken.jsonl");
    await fs.writeFile(file, [lines[0], "{this is not json", lines[1]].join("\n") + "\n");
    const res = await pitwall(["import", file, "--host", "bench-client", "--tag", "broken"], {
      PITWALL_TOKEN: token,
    });
    expect(res.stderr).toContain(`${file}:2:`);
    expect(res.code).toBe(1);
    const { runs } = await getJson<{ runs: RunRow[] }>(`${server.url}/api/runs?tag=broken`);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.pointCount).toBe(2);
    expect(runs[0]!.host).toBe("bench-client");
  });

  test("several vLLM files with --name make one run", async () => {
    const vllm = path.join(
      fixturesDir,
      "vllm-bench-serve",
      "nerdalert_2025-05_benchmark_serving_results.jsonl",
    );
    const lines = (await fs.readFile(vllm, "utf8")).trim().split("\n");
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-cli-"));
    const files = await Promise.all(
      lines.slice(0, 3).map(async (line, i) => {
        const f = path.join(dir, `rate-${i}.json`);
        await fs.writeFile(f, line);
        return f;
      }),
    );
    const res = await pitwall(
      ["import", ...files, "--name", "vLLM split sweep", "--tag", "split"],
      { PITWALL_TOKEN: token },
    );
    expect(res.code).toBe(0);
    const { runs } = await getJson<{ runs: RunRow[] }>(`${server.url}/api/runs?tag=split`);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.name).toBe("vLLM split sweep");
    expect(runs[0]!.pointCount).toBe(3);
  });

  test("without a token it explains how to get one", async () => {
    const res = await pitwall(["import", llamaFile], { PITWALL_TOKEN: "" });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("pitwall token create");
  });
});
