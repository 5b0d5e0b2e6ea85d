import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { ArtifactView } from "@/lib/view-models/pipeline";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// GET /api/runs/:id/artifacts pages through every artifact of a run, newest first, on the real
// server: the run page loads the newest 200, and its table reaches the rest through this route
// (issue 25: the 164 oldest of 364 could not be reached).

let server: SharedTestServer;
let prisma: PrismaClient;
let token: string;
let runId: number;
const TOTAL = 250;

beforeAll(async () => {
  server = await withTestServer();
  const { databaseUrl } = server;
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "artifact-host")).token;
  const key = `art-${randomUUID().slice(0, 8)}`;
  const t0 = Date.now() - TOTAL * 1000;
  const frames = [
    { type: "run.start", run: key, name: key, kind: "extraction" },
    ...Array.from({ length: TOTAL }, (_, i) => ({
      type: "run.artifact",
      run: key,
      kind: "upload",
      uri: `s3://b/${key}/shard-${String(i).padStart(5, "0")}.tar`,
      sizeBytes: 1000 + i,
      ts: t0 + i * 1000,
    })),
  ];
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(frames.map((f) => ({ v: 1, id: randomUUID(), ...f }))),
  });
  expect(((await res.json()) as { accepted: number }).accepted).toBe(frames.length);
  runId = (await prisma.run.findUniqueOrThrow({ where: { key }, select: { id: true } })).id;
});

afterAll(async () => {
  await prisma?.$disconnect();
});

const get = (path: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

test("pages reach every artifact, newest first, without overlap", async () => {
  const seen: string[] = [];
  for (let offset = 0; offset < TOTAL; offset += 100) {
    const res = await get(`/api/runs/${runId}/artifacts?offset=${offset}&limit=100`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { artifacts: ArtifactView[]; total: number };
    expect(body.total).toBe(TOTAL);
    seen.push(...body.artifacts.map((a) => a.uri));
  }
  expect(seen).toHaveLength(TOTAL);
  expect(new Set(seen).size).toBe(TOTAL);
  expect(seen[0]).toMatch(/shard-00249\.tar$/);
  expect(seen.at(-1)).toMatch(/shard-00000\.tar$/);
});

test("bad paging answers 400 invalid_query, an unknown run 404", async () => {
  for (const q of ["limit=201", "limit=0", "offset=-1", "offset=abc", "other=1"]) {
    const res = await get(`/api/runs/${runId}/artifacts?${q}`);
    expect(res.status, q).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_query");
  }
  expect((await get(`/api/runs/999999999/artifacts`)).status).toBe(404);
});
