import { randomUUID } from "node:crypto";
import http from "node:http";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { ingestHarness } from "@/test/support/ingest";

import { startNotifier, type Notifier } from "./notifier";

// The notifier against a real database and a real HTTP webhook receiver, with an injected clock:
// one message per transition (stale, resumed, failed, alert), none repeated on later ticks.

let receiver: http.Server;
let webhookUrl: string;
const received: Array<{ text: string; kind?: string; link?: string }> = [];
let clock = Date.now();
let notifier: Notifier;
// Frames are applied as received at `clock`; `ingest` returns their outcomes.
const {
  pool,
  prisma,
  apply: ingest,
  close,
} = await ingestHarness("notify-host", { now: () => new Date(clock) });

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push(JSON.parse(body) as { text: string });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  webhookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  notifier = startNotifier({
    pool,
    log: pino({ level: "silent" }),
    webhookUrl,
    publicUrl: "https://pitwall.example",
    intervalMs: 3_600_000,
    now: () => new Date(clock),
  });
});

afterAll(async () => {
  notifier?.stop();
  receiver?.close();
  await close();
});

describe("notifier", () => {
  test("stale once, resumed once, failed once, alert once", async () => {
    const run = `n-${randomUUID()}`;
    await ingest({
      type: "run.start",
      run,
      name: "extract shard 3",
      kind: "extraction",
      stallAfterS: 60,
    });
    expect(await notifier.tick()).toEqual([]);

    clock += 61_000;
    const first = await notifier.tick();
    expect(first.map((n) => n.kind)).toEqual(["stale"]);
    expect(await notifier.tick()).toEqual([]);

    await ingest({
      type: "run.progress",
      run,
      bootId: "b",
      counters: { "s3.uploaded": 1, "local.deleted": 5 },
    });
    const second = await notifier.tick();
    expect(second.map((n) => n.kind).sort()).toEqual(["alert", "resumed"]);

    await ingest({ type: "run.end", run, status: "failed", error: "CUDA out of memory" });
    const third = await notifier.tick();
    expect(third.map((n) => n.kind)).toEqual(["failed"]);
    expect(await notifier.tick()).toEqual([]);

    // Every message reached the webhook, in Slack's {text} shape, with a link to the run.
    expect(received).toHaveLength(4);
    expect(received[0]!.text).toContain("is *stale*");
    expect(received[0]!.text).toMatch(/<https:\/\/pitwall\.example\/runs\/\d+\|extract shard 3>/);
    expect(received.at(-1)!.text).toContain("CUDA out of memory");
  });

  test("a failure older than 15 minutes (e.g. an imported historical file) is not announced", async () => {
    const run = `old-${randomUUID()}`;
    const savedClock = clock;
    clock -= 3_600_000;
    await ingest(
      { type: "run.start", run, name: "old sweep", kind: "benchmark" },
      { type: "run.end", run, status: "failed" },
    );
    clock = savedClock;
    expect((await notifier.tick()).filter((n) => n.kind === "failed")).toEqual([]);
  });

  test("archived runs are not announced stale or failed", async () => {
    const staleRun = `arch-${randomUUID()}`;
    const failedRun = `arch-${randomUUID()}`;
    await ingest(
      {
        type: "run.start",
        run: staleRun,
        name: "archived zombie",
        kind: "extraction",
        stallAfterS: 60,
      },
      { type: "run.start", run: failedRun, name: "archived failure", kind: "benchmark" },
    );
    await prisma.run.updateMany({
      where: { key: { in: [staleRun, failedRun] } },
      data: { archivedAt: new Date(clock) },
    });
    expect(await notifier.tick()).toEqual([]);
    await ingest({ type: "run.end", run: failedRun, status: "failed" });
    clock += 61_000;
    expect(await notifier.tick()).toEqual([]);
  });
});

describe("plan messages", () => {
  test("a waiting plan says which agent waits on which host, in which session and project, for an approver", async () => {
    const session = `cc-${randomUUID()}`;
    await ingest(
      {
        type: "session.activity",
        session,
        source: "claude-code",
        state: "working",
        ts: clock,
        title: "Decode sweep",
        cwd: "/home/ada/src/pitwall",
        gitBranch: "bench-sweep",
      },
      {
        type: "plan.propose",
        plan: `${session}:plan:1`,
        session,
        title: "Benchmark <sweep>",
        items: [{ content: "Warm up" }, { content: "Throughput C=1..100" }],
      },
    );
    await ingest({
      type: "plan.propose",
      plan: `bare-${randomUUID()}`,
      title: "Rotate the logs",
      items: [{ content: "rotate" }],
    });
    received.length = 0;
    const sent = (await notifier.tick()).filter((n) => n.kind === "plan");
    expect(sent).toHaveLength(2);
    const sessionId = (
      await pool.query<{ id: number }>(`SELECT id FROM "AgentSession" WHERE key = $1`, [session])
    ).rows[0]!.id;
    const planId = (
      await pool.query<{ id: number }>(`SELECT id FROM "Plan" WHERE key = $1`, [
        `${session}:plan:1`,
      ])
    ).rows[0]!.id;
    expect(sent[0]!.text).toBe(
      `:raised_hand: *Claude Code* on *notify-host* waits for an approver: plan <https://pitwall.example/plans/${planId}|Benchmark &lt;sweep&gt;> (2 steps)` +
        ` · session <https://pitwall.example/sessions/${sessionId}|Decode sweep> in project pitwall (branch bench-sweep)`,
    );
    expect(sent[1]!.text).toMatch(
      /^:raised_hand: A worker on \*notify-host\* waits for an approver: plan <https:\/\/pitwall\.example\/plans\/\d+\|Rotate the logs> \(1 step\)$/,
    );
    expect(received.map((r) => r.text)).toEqual(sent.map((n) => n.text));
    // The post names the entry's kind and links it, for machine readers (Slack shows `text`).
    expect(received[0]).toMatchObject({
      kind: "plan",
      link: `https://pitwall.example/plans/${planId}`,
    });
    // Announced once.
    expect((await notifier.tick()).filter((n) => n.kind === "plan")).toEqual([]);

    // The revision after changes were requested says it revises an earlier version.
    await pool.query(`UPDATE "Plan" SET status = 'changes_requested' WHERE id = $1`, [planId]);
    await ingest({
      type: "plan.propose",
      plan: `${session}:plan:2`,
      session,
      supersedes: `${session}:plan:1`,
      title: "Benchmark sweep",
      items: [{ content: "Warm up" }],
    });
    const [revision] = (await notifier.tick()).filter((n) => n.kind === "plan");
    expect(revision!.text).toContain("(1 step, revises an earlier version)");
  });
});
