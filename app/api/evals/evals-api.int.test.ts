import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createUser } from "@/lib/server/repositories/users";
import type {
  BaselineListView,
  BaselineView,
  EvalOverviewView,
  RunEvalsView,
} from "@/lib/view-models/evals";
import { withTestServer, type SharedTestServer } from "@/test/support/shared-server";

// The eval and baseline API through the real server: reads with a worker token, τ from the raw
// counts pushed over /api/ingest, and baseline writes for approvers only (viewers and worker
// tokens get 403), zod-checked bodies (400), unique names (409 baseline_exists).

let server: SharedTestServer;
let prisma: PrismaClient;
let token: string;
let viewer: string;
let approver: string;

/** Signs in through better-auth's endpoint like the sign-in page does; returns the Cookie header value. */
async function signIn(email: string, password: string): Promise<string> {
  const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ email, password }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("pitwall.session_token="));
  return cookie!.split(";")[0]!;
}

async function newUser(role: "viewer" | "approver"): Promise<string> {
  const email = `${role}-${randomUUID().slice(0, 8)}@example.com`;
  const { password } = await createUser(prisma, { email, name: `${role} person`, role });
  return signIn(email, password);
}

beforeAll(async () => {
  server = await withTestServer();
  const { databaseUrl } = server;
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  token = (await createToken(prisma, "eval-worker")).token;
  viewer = await newUser("viewer");
  approver = await newUser("approver");
});

afterAll(async () => {
  await prisma?.$disconnect();
});

/** Pushes frames like a one-shot worker script (POST /api/ingest). */
async function push(...frames: Array<Record<string, unknown>>) {
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(frames.map((f) => ({ v: 1, id: randomUUID(), ...f }))),
  });
  const body = (await res.json()) as { accepted: number };
  expect(body.accepted, JSON.stringify(body)).toBe(frames.length);
}

async function get<T>(
  path: string,
  headers: Record<string, string> = { authorization: `Bearer ${token}` },
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as T };
}

const asApprover = () => ({
  cookie: approver,
  origin: server.url,
  "content-type": "application/json",
});
const asViewer = () => ({ cookie: viewer, origin: server.url, "content-type": "application/json" });
const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });

describe("eval reads", () => {
  test("GET /api/runs/:id/evals and GET /api/evals give τ from the raw counts pushed", async () => {
    const train = `train-${randomUUID()}`;
    const evalRun = `eval-${randomUUID()}`;
    const cat = `code-${randomUUID()}`;
    const uri = `s3://drafters/${train}/step-4000`;
    await push(
      { type: "run.start", run: train, name: "dflash bs16", kind: "training" },
      { type: "run.artifact", run: train, kind: "checkpoint", uri, step: 4000 },
      // The training run scores step 2000 itself: (900 + 3300 + 400) / 400 = 11.5.
      {
        type: "run.eval",
        run: train,
        results: [
          {
            key: "a",
            checkpoint: { step: 2000 },
            promptId: "a",
            category: cat,
            verifySteps: 100,
            acceptedTokens: 900,
          },
          {
            key: "b",
            checkpoint: { step: 2000 },
            promptId: "b",
            category: cat,
            verifySteps: 300,
            acceptedTokens: 3300,
          },
        ],
      },
      { type: "run.start", run: evalRun, name: "humaneval @4000", kind: "eval" },
      // An eval run scores step 4000 by URI: (1300 + 4600 + 500) / 500 = 12.8.
      {
        type: "run.eval",
        run: evalRun,
        results: [
          {
            key: "a",
            checkpoint: { uri },
            promptId: "a",
            category: cat,
            verifySteps: 100,
            acceptedTokens: 1300,
            outputTokPerS: 80,
          },
          {
            key: "b",
            checkpoint: { uri },
            promptId: "b",
            category: cat,
            verifySteps: 400,
            acceptedTokens: 4600,
            outputTokPerS: 120,
          },
        ],
      },
    );
    const trainId = (
      await prisma.run.findUniqueOrThrow({ where: { key: train }, select: { id: true } })
    ).id;
    const evalId = (
      await prisma.run.findUniqueOrThrow({ where: { key: evalRun }, select: { id: true } })
    ).id;

    const own = await get<RunEvalsView>(`/api/runs/${trainId}/evals`);
    expect(own.status).toBe(200);
    // The training run's page also shows the eval run's scores of the checkpoint it saved.
    expect(
      own.body.checkpoints.map((c) => [c.step, c.tau, c.verifySteps, c.acceptedTokens]),
    ).toEqual([
      ["2000", 11.5, 400, 4200],
      ["4000", 12.8, 500, 5900],
    ]);
    expect(own.body.scoredBy.map((r) => r.id)).toEqual([evalId]);
    const scored = await get<RunEvalsView>(`/api/runs/${evalId}/evals`);
    // Named by URI only: the step comes from the training run's artifact.
    expect(
      scored.body.checkpoints.map((c) => [c.key, c.step, c.uri, c.tau, c.meanOutputTokPerS]),
    ).toEqual([["step:4000", "4000", uri, 12.8, 100]]);

    // Across runs: one line for the training run, both checkpoints on it.
    const overview = await get<EvalOverviewView>(`/api/evals?category=${encodeURIComponent(cat)}`);
    expect(overview.status).toBe(200);
    expect(
      overview.body.lines.map((l) => [
        l.run.id,
        l.attributedBy,
        l.points.map((p) => [p.step, p.tau]),
      ]),
    ).toEqual([
      [
        trainId,
        "artifact",
        [
          ["2000", 11.5],
          ["4000", 12.8],
        ],
      ],
    ]);

    // A draft settings key the run does not have is refused, naming the known keys (not a silent fallback).
    const unknownDraft = await get<{ error: { code: string; message: string } }>(
      `/api/runs/${trainId}/evals?draft=nope`,
    );
    expect(unknownDraft.status).toBe(400);
    expect(unknownDraft.body.error).toEqual({
      code: "invalid_query",
      message: 'unknown draft settings key "nope"; known keys: none',
    });
    expect((await get<RunEvalsView>(`/api/runs/${trainId}/evals?draft=none`)).body.draft).toBe(
      "none",
    );

    expect((await get(`/api/runs/2000000000/evals`)).status).toBe(404);
    expect((await get(`/api/runs/abc/evals`)).status).toBe(400);
    expect((await get(`/api/evals?category=${"x".repeat(201)}`)).status).toBe(400);
    expect((await get(`/api/evals`, {})).status).toBe(401);
    // A signed-in viewer reads too.
    expect((await get(`/api/evals`, { cookie: viewer })).status).toBe(200);
  });
});

describe("baselines API", () => {
  test("lists baselines pushed by workers; viewers and worker tokens may not write (403), nobody signed in gets 401", async () => {
    const pushed = `pushed-${randomUUID()}`;
    await push({
      type: "baseline.upsert",
      name: pushed,
      metric: "tau",
      value: 12.4,
      tolerance: 0.3,
      dataset: "humaneval",
      settings: { tree: "ddtree-8" },
    });
    const list = await get<BaselineListView>("/api/baselines");
    expect(list.status).toBe(200);
    expect(list.body.baselines.find((b) => b.name === pushed)).toMatchObject({
      metric: "tau",
      value: 12.4,
      tolerance: 0.3,
      dataset: "humaneval",
      settings: { tree: "ddtree-8" },
    });
    const id = list.body.baselines.find((b) => b.name === pushed)!.id;

    // The frame has the API's limits: absurd value or band, or a non-http(s) link, is rejected alone.
    const junk = await fetch(`${server.url}/api/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify([
        {
          v: 1,
          id: randomUUID(),
          type: "baseline.upsert",
          name: `junk-${randomUUID()}`,
          metric: "tau",
          value: 1e308,
        },
        {
          v: 1,
          id: randomUUID(),
          type: "baseline.upsert",
          name: `junk-${randomUUID()}`,
          metric: "tau",
          value: 1,
          tolerance: 1e300,
        },
        {
          v: 1,
          id: randomUUID(),
          type: "baseline.upsert",
          name: `junk-${randomUUID()}`,
          metric: "tau",
          value: 1,
          sourceUrl: "javascript:alert(1)",
        },
      ]),
    });
    const junkBody = (await junk.json()) as {
      accepted: number;
      results: Array<{ ok: boolean; code?: string }>;
    };
    expect(junkBody.accepted).toBe(0);
    expect(junkBody.results.map((r) => r.code)).toEqual([
      "invalid_frame",
      "invalid_frame",
      "invalid_frame",
    ]);

    const body = { name: `viewer-${randomUUID()}`, metric: "tau", value: 1 };
    const viewerPost = await send("POST", "/api/baselines", asViewer(), body);
    expect(viewerPost.status).toBe(403);
    expect(((await viewerPost.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect(
      (
        await send(
          "POST",
          "/api/baselines",
          { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        )
      ).status,
    ).toBe(403);
    expect(
      (await send("POST", "/api/baselines", { "content-type": "application/json" }, body)).status,
    ).toBe(401);
    expect((await send("PATCH", `/api/baselines/${id}`, asViewer(), { value: 1 })).status).toBe(
      403,
    );
    expect(
      (await send("DELETE", `/api/baselines/${id}`, { cookie: viewer, origin: server.url })).status,
    ).toBe(403);
    // Cookie mutations must come from this site.
    expect(
      (
        await send(
          "POST",
          "/api/baselines",
          { ...asApprover(), origin: "http://evil.example" },
          body,
        )
      ).status,
    ).toBe(403);
    // Nothing changed.
    const after = await get<BaselineListView>("/api/baselines");
    expect(after.body.baselines.find((b) => b.id === id)?.value).toBe(12.4);
    expect(after.body.baselines.some((b) => b.name === body.name)).toBe(false);
  });

  test("approvers create (201), duplicate names are 409 baseline_exists, bad bodies 400, then edit and delete", async () => {
    const name = `DFlash DDTree-8 ${randomUUID()}`;
    const bad = async (b: unknown) => {
      const res = await send("POST", "/api/baselines", asApprover(), b);
      return {
        status: res.status,
        code: ((await res.json()) as { error: { code: string } }).error.code,
      };
    };
    expect(await bad({ name, metric: "tau", value: "12.4" })).toEqual({
      status: 400,
      code: "invalid_body",
    });
    expect(await bad({ name, metric: "tau" })).toEqual({ status: 400, code: "invalid_body" });
    expect(await bad({ name: "x".repeat(201), metric: "tau", value: 1 })).toEqual({
      status: 400,
      code: "invalid_body",
    });
    expect(await bad({ name, metric: "tau", value: 1, tolerance: -1 })).toEqual({
      status: 400,
      code: "invalid_body",
    });
    expect(await bad({ name, metric: "tau", value: 1, sourceUrl: "not a url" })).toEqual({
      status: 400,
      code: "invalid_body",
    });
    // Absurd figures would flatten every τ chart; links must be http(s).
    expect(await bad({ name, metric: "tau", value: 1e308 })).toEqual({
      status: 400,
      code: "invalid_body",
    });
    expect(await bad({ name, metric: "tau", value: 1, tolerance: 1e300 })).toEqual({
      status: 400,
      code: "invalid_body",
    });
    expect(
      await bad({ name, metric: "tau", value: 1, sourceUrl: "javascript:alert(document.cookie)" }),
    ).toEqual({ status: 400, code: "invalid_body" });
    expect(await bad({ name: "   ", metric: "tau", value: 1 })).toEqual({
      status: 400,
      code: "invalid_body",
    });
    expect(await bad({ name, metric: "tau", value: 1, colour: "red" })).toEqual({
      status: 400,
      code: "invalid_body",
    });
    expect(await bad("{not json")).toEqual({ status: 400, code: "invalid_json" });
    expect(
      (
        await send(
          "POST",
          "/api/baselines",
          { cookie: approver, origin: server.url, "content-type": "text/plain" },
          { name, metric: "tau", value: 1 },
        )
      ).status,
    ).toBe(415);

    // The name is trimmed.
    const created = await send("POST", "/api/baselines", asApprover(), {
      name: ` ${name}  `,
      metric: "tau",
      value: 12.4,
      tolerance: 0.3,
      sourceUrl: "https://example.com/dflash",
    });
    expect(created.status).toBe(201);
    const baseline = (await created.json()) as BaselineView;
    expect(baseline).toMatchObject({
      name,
      metric: "tau",
      value: 12.4,
      tolerance: 0.3,
      dataset: null,
      settings: {},
      sourceUrl: "https://example.com/dflash",
    });

    const dup = await send("POST", "/api/baselines", asApprover(), {
      name,
      metric: "tau",
      value: 1,
    });
    expect(dup.status).toBe(409);
    expect(((await dup.json()) as { error: { code: string } }).error.code).toBe("baseline_exists");
    // Another casing of the name is the same name for the API.
    const dupCase = await send("POST", "/api/baselines", asApprover(), {
      name: name.toLowerCase(),
      metric: "tau",
      value: 1,
    });
    expect(dupCase.status).toBe(409);
    expect(((await dupCase.json()) as { error: { code: string } }).error.code).toBe(
      "baseline_exists",
    );

    const patched = await send("PATCH", `/api/baselines/${baseline.id}`, asApprover(), {
      value: 12.6,
      tolerance: null,
      dataset: "humaneval",
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      id: baseline.id,
      value: 12.6,
      tolerance: null,
      dataset: "humaneval",
    });
    expect((await send("PATCH", `/api/baselines/${baseline.id}`, asApprover(), {})).status).toBe(
      400,
    );
    expect(
      (await send("PATCH", `/api/baselines/${baseline.id}`, asApprover(), { value: "high" }))
        .status,
    ).toBe(400);
    expect(
      (await send("PATCH", "/api/baselines/2000000000", asApprover(), { value: 1 })).status,
    ).toBe(404);

    const second = (await (
      await send("POST", "/api/baselines", asApprover(), {
        name: `${name} b`,
        metric: "tau",
        value: 3,
      })
    ).json()) as BaselineView;
    const rename = await send("PATCH", `/api/baselines/${second.id}`, asApprover(), { name });
    expect(rename.status).toBe(409);
    expect(((await rename.json()) as { error: { code: string } }).error.code).toBe(
      "baseline_exists",
    );

    expect(
      (
        await send("DELETE", `/api/baselines/${second.id}`, {
          cookie: approver,
          origin: server.url,
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await send("DELETE", `/api/baselines/${second.id}`, {
          cookie: approver,
          origin: server.url,
        })
      ).status,
    ).toBe(404);
    const list = await get<BaselineListView>("/api/baselines");
    expect(
      list.body.baselines.filter((b) => b.name.startsWith(name)).map((b) => [b.name, b.value]),
    ).toEqual([[name, 12.6]]);
  });
});
