import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { createTestDatabase } from "@/test/support/db";

import { BinaryArray, binaryArray } from "./binary-array";

// The arrays are read back by a real PostgreSQL (array_recv), bound exactly as the ingest
// statements bind them: `$n::text[]`, `::int2[]`, `::int4[]`, `::int8[]`, `::float8[]`.

let pool: pg.Pool;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await createTestDatabase(), max: 1 });
});

afterAll(async () => {
  await pool?.end();
});

const NASTY_KEYS = [
  "",
  " ",
  "  leading and trailing  ",
  "plain/key",
  'a "quoted" key',
  '"',
  '\\"',
  "back\\slash",
  "\\",
  "trailing\\",
  "comma,separated",
  "{braces}",
  "}{",
  "[1:2]={x}",
  "NULL",
  "null",
  "NuLl",
  "tab\there",
  "new\nline",
  "cr\rlf",
  "ünïcödé — ✓ 日本語 🚀",
  "\u00a0nbsp",
  "'single' quotes",
  "a;b:c=d",
  "x".repeat(200),
  "é".repeat(300), // grows the buffer past its first size
];

test("text arrays round-trip every character PostgreSQL text can hold, in order, and NULL stays distinct from 'NULL'", async () => {
  const values: Array<string | null> = [...NASTY_KEYS, null, "after null"];
  const res = await pool.query<{ v: Array<string | null> }>("SELECT $1::text[] AS v", [
    binaryArray("text", values),
  ]);
  expect(res.rows[0]!.v).toEqual(values);
  // Element by element through unnest, as the ingest statements read them.
  const rows = await pool.query<{ k: string | null; bytes: number | null }>(
    "SELECT k, octet_length(k) AS bytes FROM unnest($1::text[]) WITH ORDINALITY AS u(k, i) ORDER BY i",
    [binaryArray("text", values)],
  );
  expect(rows.rows.map((r) => r.k)).toEqual(values);
  expect(rows.rows.map((r) => r.bytes)).toEqual(
    values.map((v) => (v === null ? null : Buffer.byteLength(v))),
  );
});

test("a NUL character is refused by PostgreSQL (22021), as with node-postgres' own encoding", async () => {
  await expect(
    pool.query("SELECT $1::text[]", [binaryArray("text", ["a\u0000b"])]),
  ).rejects.toMatchObject({ code: "22021" });
});

test("int8 keeps the full signed 64-bit range from bigints and safe integers from numbers; int2/int4 their own ranges", async () => {
  const ints = [
    0n,
    -1n,
    9_223_372_036_854_775_807n,
    -9_223_372_036_854_775_808n,
    2n ** 53n + 1n,
    null,
    42,
    -42,
    2 ** 32,
    -(2 ** 32) - 1,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    2 ** 31 - 1,
    -(2 ** 31),
  ];
  const res = await pool.query<{ v: string[] }>("SELECT $1::int8[]::text[] AS v", [
    binaryArray("int8", ints),
  ]);
  expect(res.rows[0]!.v).toEqual(ints.map((v) => (v === null ? null : String(v))));
  expect(() => binaryArray("int8", [2 ** 53])).toThrow(RangeError);
  expect(() => binaryArray("int8", [2n ** 63n])).toThrow(RangeError);

  const int4 = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), null];
  expect(
    (
      await pool.query<{ v: Array<number | null> }>("SELECT $1::int4[] AS v", [
        binaryArray("int4", int4),
      ])
    ).rows[0]!.v,
  ).toEqual(int4);
  const int2 = [0, 60, -1, 32767, -32768, null];
  expect(
    (
      await pool.query<{ v: Array<number | null> }>("SELECT $1::int2[] AS v", [
        binaryArray("int2", int2),
      ])
    ).rows[0]!.v,
  ).toEqual(int2);
  expect(() => binaryArray("int2", [32768])).toThrow(RangeError);
});

test("float8 keeps NaN, ±Infinity and the exact bits of every double; -0 is written as 0", async () => {
  const floats = [
    0,
    -0.5,
    0.1 + 0.2,
    1e-300,
    5e-324,
    1.7976931348623157e308,
    1e21,
    -123456.789,
    NaN,
    Infinity,
    -Infinity,
    null,
    -0,
  ];
  const back = await pool.query<{ v: Array<number | null>; exact: boolean; zero: string }>(
    `SELECT $1::float8[] AS v, ($1::float8[])[3] = 0.30000000000000004::float8 AND ($1::float8[])[5] = 5e-324::float8 AS exact, ($1::float8[])[13]::text AS zero`,
    [binaryArray("float8", floats)],
  );
  expect(back.rows[0]!.v).toEqual(floats.map((v) => (Object.is(v, -0) ? 0 : v)));
  expect(back.rows[0]!.exact).toBe(true);
  expect(back.rows[0]!.zero).toBe("0");
});

test("a wrong element type is refused by PostgreSQL rather than misread", async () => {
  await expect(pool.query("SELECT $1::int8[]", [binaryArray("int4", [1])])).rejects.toThrow(
    /array element type 23 \(integer\) instead of expected 20/,
  );
});

test("empty arrays, and several columns of one row shape through unnest", async () => {
  const res = await pool.query<{ n: number; t: number }>(
    "SELECT cardinality($1::int4[]) AS n, cardinality($2::text[]) AS t",
    [binaryArray("int4", []), new BinaryArray("text").toBuffer()],
  );
  expect(res.rows[0]).toEqual({ n: 0, t: 0 });
  const keys = new BinaryArray("text").push("a,b").push(null).push("NULL");
  const nums = new BinaryArray("int8", 1).push(1).push(null).push(3n);
  expect(keys.length).toBe(3);
  const rows = await pool.query<{ k: string | null; n: string | null }>(
    "SELECT k, n::text FROM unnest($1::text[], $2::int8[]) AS u(k, n)",
    [keys.toBuffer(), nums.toBuffer()],
  );
  expect(rows.rows).toEqual([
    { k: "a,b", n: "1" },
    { k: null, n: null },
    { k: "NULL", n: "3" },
  ]);
});
