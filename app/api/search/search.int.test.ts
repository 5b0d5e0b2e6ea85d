import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { SearchResults } from "@/lib/view-models/search";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// GET /api/search on the real server over a real migrated PostgreSQL: every kind is found by
// the fields the issue names, archived runs are not, bad queries get 400 `invalid_query`, and the
// queries are served from the trigram indexes (EXPLAIN with sequential scans off must name them).

let server: SharedTestServer;
let prisma: PrismaClient;
let token: string;
const u = randomUUID().slice(0, 6);

beforeAll(async () => {
  server = await withTestServer();
  const { databaseUrl } = server;
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, `searchhost-${u}`)).token;
  const ts = Date.now();
  const frames: Array<Record<string, unknown>> = [
    {
      type: "run.start",
      run: `alpha-${u}`,
      name: `Qwen3 sweep ${u}`,
      kind: "benchmark",
      tags: ["tp8", `tag${u}`],
      notes: `MTP disabled because of zebracorn-${u}`,
    },
    { type: "run.start", run: `beta-${u}`, name: `llama pretrain ${u}`, kind: "training" },
    {
      type: "run.artifact",
      run: `beta-${u}`,
      kind: "checkpoint",
      uri: `s3://ckpt/llama-${u}/step-1000`,
    },
    { type: "run.start", run: `gamma-${u}`, name: `archived thing ${u}`, kind: "eval" },
    {
      type: "session.todos",
      session: `sess-${u}`,
      source: "claude-code",
      title: `Refactor ingest ${u}`,
      seq: 0,
      ts,
      items: [{ content: `Write the flamingo-${u} migration`, status: "pending" }],
    },
    {
      type: "plan.propose",
      plan: `plan-${u}`,
      title: `Rebalance shards ${u}`,
      items: [{ content: "step one" }],
    },
  ];
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(frames.map((f) => ({ v: 1, id: randomUUID(), ...f }))),
  });
  expect(((await res.json()) as { accepted: number }).accepted).toBe(frames.length);
  await prisma.run.update({ where: { key: `gamma-${u}` }, data: { archivedAt: new Date() } });
});

afterAll(async () => {
  await prisma?.$disconnect();
});

const search = async (q: string): Promise<Response> =>
  fetch(`${server.url}/api/search?q=${encodeURIComponent(q)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
const results = async (q: string): Promise<SearchResults> => {
  const res = await search(q);
  expect(res.status).toBe(200);
  return (await res.json()) as SearchResults;
};
const titles = (hits: Array<{ title: string }>) => hits.map((h) => h.title);

describe("GET /api/search", () => {
  test("finds runs by name, key, tag and notes, case-insensitively, and links their pages", async () => {
    const byName = await results(`QWEN3 SWEEP ${u}`);
    expect(titles(byName.runs)).toEqual([`Qwen3 sweep ${u}`]);
    const id = (await prisma.run.findUniqueOrThrow({ where: { key: `alpha-${u}` } })).id;
    expect(byName.runs[0]!.href).toBe(`/runs/${id}`);
    expect(titles((await results(`beta-${u}`)).runs)).toEqual([`llama pretrain ${u}`]);
    expect((await results(`tag${u}`)).runs[0]).toMatchObject({
      title: `Qwen3 sweep ${u}`,
      detail: `benchmark · tag tag${u}`,
    });
    expect((await results(`zebracorn-${u}`)).runs[0]!.detail).toContain(`zebracorn-${u}`);
  });

  test("leaves archived runs out", async () => {
    expect((await results(`archived thing ${u}`)).runs).toEqual([]);
  });

  test("finds sessions by title and todo text, plans, hosts and checkpoints", async () => {
    const todo = await results(`flamingo-${u}`);
    expect(todo.sessions).toHaveLength(1);
    expect(todo.sessions[0]).toMatchObject({
      title: `Refactor ingest ${u}`,
      detail: `todo: Write the flamingo-${u} migration`,
    });
    expect(todo.sessions[0]!.href).toMatch(/^\/sessions\/\d+$/);
    expect(titles((await results(`refactor ingest ${u}`)).sessions)).toEqual([
      `Refactor ingest ${u}`,
    ]);
    const plan = await results(`rebalance shards ${u}`);
    expect(titles(plan.plans)).toEqual([`Rebalance shards ${u}`]);
    expect(plan.plans[0]!.detail).toContain("proposed");
    expect((await results(`searchhost-${u}`)).hosts).toEqual([
      {
        kind: "host",
        id: `searchhost-${u}`,
        title: `searchhost-${u}`,
        detail: null,
        href: `/hosts/searchhost-${u}`,
      },
    ]);
    const ckpt = await results(`llama-${u}/step`);
    expect(ckpt.checkpoints.map((c) => c.href)).toEqual([
      `/checkpoints/view?uri=${encodeURIComponent(`s3://ckpt/llama-${u}/step-1000`)}`,
    ]);
    // Titled by the segment that tells checkpoints apart; the whole URI below it.
    expect(ckpt.checkpoints.map((c) => [c.title, c.detail])).toEqual([
      ["step-1000", `s3://ckpt/llama-${u}/step-1000`],
    ]);
  });

  test("takes % and _ literally", async () => {
    // As a wildcard, "%<suffix>" would match this file's runs alpha and beta; taken literally it
    // matches nothing (the shared server's database holds other files' runs, so not "%" alone).
    const all = await results(`%${u}`);
    expect(all.runs).toEqual([]);
    expect((await results(`beta_${u}`)).runs).toEqual([]);
  });

  test("rejects an empty, blank or over-long query and a bad limit with 400 invalid_query", async () => {
    for (const path of [
      "/api/search",
      "/api/search?q=",
      "/api/search?q=%20%20",
      `/api/search?q=${"x".repeat(201)}`,
      "/api/search?q=a&limit=0",
      "/api/search?q=a&limit=x",
    ]) {
      const res = await fetch(`${server.url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_query");
    }
  });

  test("needs a viewer", async () => {
    expect((await fetch(`${server.url}/api/search?q=abc`)).status).toBe(401);
  });

  test("the run, plan, session and checkpoint matches can use the trigram indexes", async () => {
    const plans = await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
      const plan = async (sql: string) =>
        (await tx.$queryRawUnsafe<Array<{ "QUERY PLAN": string }>>(`EXPLAIN ${sql}`))
          .map((r) => r["QUERY PLAN"])
          .join("\n");
      return [
        await plan(
          `SELECT id FROM "Run" WHERE name ILIKE '%sweep%' OR key ILIKE '%sweep%' OR notes ILIKE '%sweep%' OR tags && ARRAY['sweep']`,
        ),
        await plan(`SELECT id FROM "Plan" WHERE title ILIKE '%shards%'`),
        await plan(`SELECT id FROM "AgentSession" WHERE title ILIKE '%ingest%'`),
        await plan(`SELECT id FROM "Artifact" WHERE uri ILIKE '%llama%'`),
      ];
    });
    for (const name of [
      "Run_name_trgm_idx",
      "Run_key_trgm_idx",
      "Run_notes_trgm_idx",
      "Run_tags_gin_idx",
    ])
      expect(plans[0]).toContain(name);
    expect(plans[1]).toContain("Plan_title_trgm_idx");
    expect(plans[2]).toContain("AgentSession_title_trgm_idx");
    expect(plans[3]).toContain("Artifact_uri_trgm_idx");
  });
});
