import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import type { OverviewView } from "@/lib/view-models/overview";
import { createTestDatabase } from "@/test/support/db";
import { newSignedInUser } from "@/test/support/people";
import { startTestServer, type TestServer } from "@/test/support/server";

// Alert rules end to end on the real server: an approver creates a rule through the API, a worker
// pushes loss NaN for 3 steps, the notifier loop (every 200 ms here) fires the alert once — one
// POST to a real test webhook receiver, the code on the overview, a warn event on the run — and,
// once a finite loss arrives, resolves it with a second POST.

let server: TestServer;
let prisma: PrismaClient;
let token: string;
let receiver: http.Server;
const posts: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      posts.push((JSON.parse(body) as { text: string }).text);
      res.end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const databaseUrl = await createTestDatabase();
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  server = await startTestServer({
    databaseUrl,
    env: { PITWALL_WEBHOOK_URL: webhook, PITWALL_NOTIFY_INTERVAL_MS: "200" },
  });
  token = (await createToken(prisma, "alerts-host")).token;
});

afterAll(async () => {
  await server?.stop();
  await prisma?.$disconnect();
  await new Promise((r) => receiver?.close(r));
});

async function ingest(frames: Array<Record<string, unknown>>): Promise<void> {
  const res = await fetch(`${server.url}/api/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(frames.map((f) => ({ v: 1, id: randomUUID(), ...f }))),
  });
  expect(((await res.json()) as { accepted: number }).accepted).toBe(frames.length);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(
  fn: () => Promise<T> | T,
  ok: (v: T) => boolean,
  what: string,
  ms = 15_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const overviewAlerts = async (runId: number): Promise<string[]> => {
  const res = await fetch(`${server.url}/api/overview`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (
    ((await res.json()) as OverviewView).active.find((r) => r.id === runId)?.activeAlerts ?? []
  );
};

describe("alert rules", () => {
  test("loss NaN for 3 steps fires once, posts to the webhook, resolves and posts again", async () => {
    const approver = await newSignedInUser(prisma, server.url, "approver");
    const tag = `nan-${randomUUID().slice(0, 6)}`;
    const created = await fetch(`${server.url}/api/alert-rules`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: approver.cookie, origin: server.url },
      body: JSON.stringify({
        name: "loss went NaN",
        kind: "training",
        tag,
        metricKey: "loss",
        condition: "nan",
        forSteps: 3,
      }),
    });
    expect(created.status).toBe(201);
    const rule = (await created.json()) as { id: number; createdBy: string };
    expect(rule.createdBy).toBe(approver.email);

    const key = `train-${tag}`;
    await ingest([
      { type: "run.start", run: key, name: `pretrain ${tag}`, kind: "training", tags: [tag] },
      {
        type: "run.metrics",
        run: key,
        points: [
          { key: "loss", step: 1, value: 2.5 },
          { key: "loss", step: 2, value: "NaN" },
          { key: "loss", step: 3, value: "NaN" },
        ],
      },
    ]);
    const runId = (await prisma.run.findUniqueOrThrow({ where: { key } })).id;
    // Two NaN steps are not three: several ticks pass without a post.
    await sleep(1000);
    expect(posts.filter((p) => p.includes(`pretrain ${tag}`))).toEqual([]);

    await ingest([
      { type: "run.metrics", run: key, points: [{ key: "loss", step: 4, value: "NaN" }] },
    ]);
    const fired = await until(
      () => posts.filter((p) => p.includes(`pretrain ${tag}`)),
      (p) => p.length > 0,
      "the firing post",
    );
    expect(fired[0]).toContain("alert *loss went NaN*");
    expect(fired[0]).toContain("loss NaN/Inf for 3 steps (steps 2-4)");
    expect(await overviewAlerts(runId)).toEqual([`alert_rule_${rule.id}`]);
    const event = await prisma.runEvent.findFirstOrThrow({
      where: { runId, code: `alert_rule_${rule.id}` },
    });
    expect(event).toMatchObject({ level: "warn" });

    // More NaN steps while it is firing: still one post.
    await ingest([
      { type: "run.metrics", run: key, points: [{ key: "loss", step: 5, value: "NaN" }] },
    ]);
    await sleep(1000);
    expect(posts.filter((p) => p.includes(`pretrain ${tag}`))).toHaveLength(1);

    await ingest([
      { type: "run.metrics", run: key, points: [{ key: "loss", step: 6, value: 2.1 }] },
    ]);
    const both = await until(
      () => posts.filter((p) => p.includes(`pretrain ${tag}`)),
      (p) => p.length === 2,
      "the resolution post",
    );
    expect(both[1]).toContain("alert *loss went NaN* resolved");
    expect(await overviewAlerts(runId)).toEqual([]);
    expect(
      await prisma.runEvent.count({
        where: { runId, code: `alert_rule_${rule.id}_resolved`, level: "info" },
      }),
    ).toBe(1);
    await sleep(600);
    expect(posts.filter((p) => p.includes(`pretrain ${tag}`))).toHaveLength(2);
  });

  test("a run without the rule's tag is not watched", async () => {
    const approver = await newSignedInUser(prisma, server.url, "approver");
    const tag = `only-${randomUUID().slice(0, 6)}`;
    const res = await fetch(`${server.url}/api/alert-rules`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: approver.cookie, origin: server.url },
      body: JSON.stringify({
        name: "tagged only",
        kind: "training",
        tag,
        metricKey: "loss",
        condition: "above",
        threshold: 10,
        forSteps: 1,
      }),
    });
    expect(res.status).toBe(201);
    const key = `other-${tag}`;
    await ingest([
      { type: "run.start", run: key, name: `untagged ${tag}`, kind: "training" },
      { type: "run.metrics", run: key, points: [{ key: "loss", step: 1, value: 50 }] },
    ]);
    await sleep(1000);
    expect(posts.filter((p) => p.includes(`untagged ${tag}`))).toEqual([]);
  });

  test("only approvers write rules, and bad rules get 400 invalid_body with the reason", async () => {
    const viewer = await newSignedInUser(prisma, server.url, "viewer");
    const approver = await newSignedInUser(prisma, server.url, "approver");
    const post = (cookie: string, body: unknown) =>
      fetch(`${server.url}/api/alert-rules`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie, origin: server.url },
        body: JSON.stringify(body),
      });
    const good = { name: "x", kind: "training", metricKey: "loss", condition: "nan", forSteps: 3 };
    expect((await post(viewer.cookie, good)).status).toBe(403);
    for (const [bad, message] of [
      [{ ...good, condition: "above" }, "needs a threshold"],
      [{ ...good, forSeconds: 60 }, "exactly one of forSteps or forSeconds"],
      [{ ...good, condition: "no_data" }, "measured in seconds"],
      [{ ...good, kind: "nope" }, "kind"],
    ] as const) {
      const res = await post(approver.cookie, bad);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("invalid_body");
      expect(body.error.message).toContain(message);
    }
    const list = (await (
      await fetch(`${server.url}/api/alert-rules`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { rules: Array<{ name: string }> };
    expect(list.rules.map((r) => r.name)).not.toContain("x");
  });
});
