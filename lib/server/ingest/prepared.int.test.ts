import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { createTestDatabase } from "@/test/support/db";

import { preparedStatements } from "./prepared";

let pool: pg.Pool;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 1 });
});

afterAll(async () => {
  await pool?.end();
});

test("text + values queries run as named prepared statements, one per text; other forms pass through", async () => {
  const client = preparedStatements(await pool.connect());
  try {
    const a = await client.query<{ n: number }>("SELECT $1::int + 1 AS n", [1]);
    const b = await client.query<{ n: number }>("SELECT $1::int + 1 AS n", [41]);
    expect([a.rows[0]!.n, b.rows[0]!.n]).toEqual([2, 42]);
    await client.query("SELECT $1::text AS s", ["other text"]);
    // Query configs and bare texts are not rewritten.
    await client.query({ text: "SELECT $1::int AS c", values: [3] });
    await client.query("SELECT 1");
    const named = await client.query<{ name: string; statement: string }>(
      "SELECT name, statement FROM pg_prepared_statements ORDER BY statement",
    );
    expect(named.rows.map((r) => r.statement)).toEqual([
      "SELECT $1::int + 1 AS n",
      "SELECT $1::text AS s",
    ]);
    expect(named.rows.every((r) => /^pw_[0-9a-f]{20}$/.test(r.name))).toBe(true);
  } finally {
    client.release();
  }
});
