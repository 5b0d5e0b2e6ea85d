import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { decidePlan, expirePlans } from "@/lib/server/repositories/plan-decisions";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// `pitwall plan propose plan.json --wait` as an agent runs it, against the real server: it
// blocks until a person decides, prints the decided items, and exits with the decision's code.

const projectDir = path.resolve(import.meta.dirname, "../..");
let server: SharedTestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
let token: string;
let dir: string;

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  pool = new pg.Pool({ connectionString: url, max: 2 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  token = (await createToken(prisma, "agent-host")).token;
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-plan-"));
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

/** Starts the CLI; resolves with exit code and output when it exits. */
function propose(args: string[]) {
  const child = spawn(
    process.execPath,
    [path.join(projectDir, "bin", "pitwall.mjs"), "plan", "propose", ...args],
    {
      cwd: projectDir,
      env: { ...process.env, PITWALL_URL: server.url, PITWALL_TOKEN: token },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stdout, stderr })),
  );
  return { done, stderrText: () => stderr };
}

async function planFile(name: string, title: string) {
  const file = path.join(dir, name);
  await fs.writeFile(
    file,
    JSON.stringify({
      title,
      rationale: "sweep done",
      items: [
        { content: "Start extraction", priority: "high" },
        { content: "Upload to S3", priority: "medium" },
      ],
    }),
  );
  return file;
}

/** Waits until the CLI has proposed (the plan row exists); returns its id. */
async function proposedPlanId(key: string): Promise<number> {
  for (let i = 0; i < 300; i++) {
    const row = (await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [key]))
      .rows[0];
    if (row) return row.id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`plan ${key} never proposed`);
}

describe("pitwall plan propose --wait", () => {
  test("approved with edits: prints the edited items and exits 0", async () => {
    const cli = propose([await planFile("a.json", "A"), "--wait", "--key", "plan-approve"]);
    const id = await proposedPlanId("plan-approve");
    const edited = [
      { content: "Start extraction on 4 GPUs", priority: "high" as const },
      { content: "Upload to S3; after upload remove local data; max 100 parallel" },
    ];
    await decidePlan(
      pool,
      id,
      { decision: "approved", items: edited, comment: "proceed" },
      "alice",
    );
    const res = await cli.done;
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual(edited);
    expect(res.stderr).toContain("approved by alice: proceed");
  });

  test("changes requested → exit 3 with the comment; rejected → exit 4; expired → exit 5", async () => {
    const a = propose([await planFile("b.json", "B"), "--wait", "--key", "plan-changes"]);
    await decidePlan(
      pool,
      await proposedPlanId("plan-changes"),
      { decision: "changes_requested", comment: "split the upload step" },
      "bob",
    );
    const ra = await a.done;
    expect(ra.code).toBe(3);
    expect(ra.stderr).toContain("split the upload step");

    const b = propose([await planFile("c.json", "C"), "--wait", "--key", "plan-reject"]);
    await decidePlan(pool, await proposedPlanId("plan-reject"), { decision: "rejected" }, "carol");
    expect((await b.done).code).toBe(4);

    const c = propose([await planFile("d.json", "D"), "--wait", "--key", "plan-expire"]);
    await proposedPlanId("plan-expire");
    await expirePlans(pool, new Date(Date.now() + 25 * 3600 * 1000));
    expect((await c.done).code).toBe(5);
  });

  test("a malformed plan.json is a usage error (exit 2)", async () => {
    const file = path.join(dir, "bad.json");
    await fs.writeFile(file, JSON.stringify({ title: "no items" }));
    const res = await propose([file, "--wait"]).done;
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("items");
  });
});
