import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// Two hosts creating the same new run key at the same instant: both batches pass the ownership
// check (the key does not exist yet when they look). The run must still end up owned by one of
// them, unchanged by the other, whose frames are refused with `forbidden` and whose frame ids are
// not recorded. The race is forced: the test holds a lock that stops both batches right after
// their ownership check (claiming frame ids needs "IngestedFrame"), then lets them go together.

let server: SharedTestServer;
let pool: pg.Pool;
let prisma: PrismaClient;
const tokens = { a: "", b: "" };

beforeAll(async () => {
  server = await withTestServer();
  const url = server.databaseUrl;
  pool = new pg.Pool({ connectionString: url, max: 3 });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 1 }) });
  tokens.a = (await createToken(prisma, "race-host-a")).token;
  tokens.b = (await createToken(prisma, "race-host-b")).token;
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
});

type Result = { id: string; ok: boolean; code?: string };

async function push(token: string, frames: Array<Record<string, unknown>>): Promise<Result[]> {
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(frames),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Result[] }).results;
}

test("two tokens racing to create one run key: one owns it, the other gets forbidden and leaves no trace", async () => {
  const run = `race-${randomUUID()}`;
  const framesOf = (who: string) => [
    // Padded past the group committer's parallelMinBytes, so the two requests commit in two
    // transactions side by side (two instances on one database race the same way).
    {
      v: 1,
      id: `${who}-start`,
      type: "run.start",
      run,
      name: `${who}'s run`,
      kind: "training",
      config: { by: who, notes: "x".repeat(300_000) },
    },
    {
      v: 1,
      id: `${who}-metrics`,
      type: "run.metrics",
      run,
      points: [{ key: "loss", step: 1, value: who === "a" ? 1 : 2 }],
    },
  ];
  const gate = await pool.connect();
  let results: [Result[], Result[]];
  try {
    await gate.query("BEGIN");
    await gate.query(`LOCK TABLE "IngestedFrame" IN SHARE MODE`);
    const both = Promise.all([push(tokens.a, framesOf("a")), push(tokens.b, framesOf("b"))]);
    // Both batches have looked the key up (absent) and now wait to claim their frame ids.
    for (let i = 0; i < 500; i++) {
      const waiting = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = '"IngestedFrame"'::regclass`,
      );
      if (waiting.rows[0]!.n >= 2) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const waiting = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = '"IngestedFrame"'::regclass`,
    );
    expect(waiting.rows[0]!.n).toBe(2);
    await gate.query("COMMIT");
    results = await both;
  } finally {
    gate.release();
  }

  const okA = results[0].every((r) => r.ok);
  const okB = results[1].every((r) => r.ok);
  expect(okA !== okB).toBe(true); // exactly one winner
  const [winner, loser] = okA ? ["a", results[1]] : ["b", results[0]];
  expect(loser.map((r) => r.code)).toEqual(["forbidden", "forbidden"]);

  const stored = await pool.query<{ name: string; by: string; owner: string; loss: number }>(
    `SELECT r.name, r.config->>'by' AS by, h.name AS owner, (SELECT value FROM "MetricPoint" m WHERE m."runId" = r.id AND m.key = 'loss' AND m.step = 1) AS loss
       FROM "Run" r JOIN "Host" h ON h.id = r."ownerHostId" WHERE r.key = $1`,
    [run],
  );
  expect(stored.rows).toEqual([
    {
      name: `${winner}'s run`,
      by: winner,
      owner: `race-host-${winner}`,
      loss: winner === "a" ? 1 : 2,
    },
  ]);
  // The loser's frame ids are not recorded: it may send them again with the right token.
  const loserIds = okA ? ["b-start", "b-metrics"] : ["a-start", "a-metrics"];
  const claimed = await pool.query(
    `SELECT 1 FROM "IngestedFrame" WHERE "frameId" = ANY($1::text[])`,
    [loserIds],
  );
  expect(claimed.rowCount).toBe(0);
});
