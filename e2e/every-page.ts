import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";

import { connectWorker, createToken } from "./support";

/**
 * Seeds one of everything through /ws/ingest, the way workers do (a run of each kind with data, a
 * session with todos and a pending plan, a τ baseline, an online host with GPUs and an offline
 * one), and returns every page path worth checking. Used by the accessibility specs.
 */
export async function seedEveryPage(
  baseURL: string,
  request: APIRequestContext,
  label: string,
): Promise<{ paths: string[]; tag: string }> {
  const tag = `${label}-${randomUUID().slice(0, 8)}`;
  const host = `e2e-${tag}`;
  const worker = await connectWorker(baseURL, createToken(host));
  // Never seen: an offline host on the overview and /hosts (its text must keep AA contrast).
  createToken(`e2e-${tag}-offline`);
  const id = () => randomUUID();
  const send = (frame: Record<string, unknown>) => worker.send({ v: 1, id: id(), ...frame });
  const start = (kind: string, extra: Record<string, unknown> = {}) =>
    send({
      type: "run.start",
      run: `${tag}-${kind}`,
      name: `${kind} · ${tag}`,
      kind,
      tags: [tag],
      config: { model: "Qwen/Qwen3.6-27B", engine: "sglang" },
      ...extra,
    });
  await send({
    type: "heartbeat",
    intervalS: 10,
    facts: {
      gpus: [0, 1].map((index) => ({
        index,
        name: "NVIDIA RTX A6000",
        utilPct: 60 + index,
        memUsedMiB: 30_000,
        memTotalMiB: 49_140,
      })),
      ramUsedBytes: 4e11,
      ramTotalBytes: 1.0054e12,
    },
  });
  await start("benchmark");
  const point = (c: number, extra: Record<string, unknown> = {}) => ({
    key: `c${c}-${JSON.stringify(extra)}`,
    concurrency: c,
    completed: 64,
    outputTokPerS: 40 * c,
    ttftMsMedian: 90 * c,
    ttftMsP99: 120 * c,
    tpotMsMedian: 20 + c,
    tpotMsP99: 30 + c,
    ...extra,
  });
  await send({
    type: "run.benchmark",
    run: `${tag}-benchmark`,
    points: [1, 2, 4, 8, 16, 32].map((c) => point(c)),
  });
  await start("extraction", { total: 1000, unit: "samples" });
  await send({
    type: "run.progress",
    run: `${tag}-extraction`,
    workerId: "gpu0",
    bootId: "b0",
    done: 400,
    counters: { "s3.uploaded": 390, "local.deleted": 380, "s3.bytes": 4.3e11 },
  });
  for (let i = 0; i < 30; i++)
    await send({
      type: "run.artifact",
      run: `${tag}-extraction`,
      kind: "upload",
      uri: `s3://bucket/${tag}/shard-${String(i).padStart(5, "0")}.tar`,
      sizeBytes: 1.1e6 * (i + 1),
    });
  // Enough events that the run page's event list scrolls (a scrollable region must take keyboard focus).
  for (let i = 0; i < 16; i++)
    await send({
      type: "run.event",
      run: `${tag}-extraction`,
      level: "warn",
      message: `gpu0: upload of shard ${i} failed: 503 SlowDown; retrying`,
    });
  await start("training");
  await send({
    type: "run.metrics",
    run: `${tag}-training`,
    points: [1, 2, 3, 4].flatMap((s) => [
      { key: "train/loss", step: s * 100, value: 3 / s },
      { key: "lr", step: s * 100, value: 3e-4 },
    ]),
  });
  await send({
    type: "run.artifact",
    run: `${tag}-training`,
    kind: "checkpoint",
    step: 400,
    uri: `s3://ckpts/${tag}/checkpoint-000400/`,
  });
  for (let i = 1; i <= 16; i++)
    await send({
      type: "run.event",
      run: `${tag}-training`,
      message: `checkpoint ${i * 100} uploaded to s3://ckpts/${tag}/checkpoint-${String(i * 100).padStart(6, "0")}/`,
    });
  await start("eval");
  await send({
    type: "run.eval",
    run: `${tag}-eval`,
    results: ["coding", "math", "chat"].map((category, i) => ({
      key: `r${i}`,
      checkpoint: { step: 400, uri: `s3://ckpts/${tag}/checkpoint-000400/` },
      promptId: `p${i}`,
      category,
      dataset: "spec-bench-mini",
      verifySteps: 50,
      acceptedTokens: 400 + 60 * i,
    })),
  });
  await send({
    type: "baseline.upsert",
    name: `DDTree-8 (coding) ${tag}`,
    metric: "tau",
    value: 12.4,
    tolerance: 0.3,
    settings: { category: "coding" },
  });
  await start("serving", { config: { url: "http://127.0.0.1:30000/metrics", intervalS: 5 } });
  const t0 = Date.now() - 60_000;
  await send({
    type: "run.metrics",
    run: `${tag}-serving`,
    points: [0, 1, 2].flatMap((i) => [
      { key: "serving/up", step: t0 + i * 5000, value: 1 },
      { key: "serving/running_requests", step: t0 + i * 5000, value: 20 + i },
      { key: "serving/generation_tok_per_s", step: t0 + i * 5000, value: 557.8 + i },
      { key: "serving/kv_cache_usage", step: t0 + i * 5000, value: 0.4 },
      { key: "serving/ttft_ms_p50", step: t0 + i * 5000, value: 120 },
    ]),
  });
  await send({
    type: "session.todos",
    session: `${tag}-session`,
    source: "pushed",
    title: `Agent session ${tag}`,
    seq: 1,
    ts: Date.now(),
    items: [
      { content: "Run the sweep", status: "completed" },
      { content: "Upload results", status: "in_progress" },
      { content: "Write the report", status: "pending" },
    ],
  });
  await send({
    type: "plan.propose",
    plan: `${tag}-plan`,
    session: `${tag}-session`,
    run: `${tag}-extraction`,
    title: `Resume the extraction ${tag}`,
    items: [{ content: "Resume from the last checkpoint", priority: "high" }],
  });
  worker.close();

  const runs = (await (await request.get(`/api/runs?tag=${tag}&limit=50`)).json()) as {
    runs: Array<{ id: number; kind: string }>;
  };
  const byKind = Object.fromEntries(runs.runs.map((r) => [r.kind, r.id]));
  const sessions = (await (await request.get("/api/sessions")).json()) as {
    sessions: Array<{ id: number; key: string }>;
  };
  const sessionId = sessions.sessions.find((s) => s.key === `${tag}-session`)!.id;
  const plans = (await (await request.get(`/api/plans?session=${sessionId}`)).json()) as {
    plans: Array<{ id: number }>;
  };
  const planId = plans.plans[0]!.id;
  return {
    tag,
    paths: [
      "/",
      "/?wall=1",
      "/runs",
      ...Object.values(byKind).map((runId) => `/runs/${runId}`),
      `/compare?ids=${byKind.benchmark}`,
      // Training metrics overlaid beside a benchmark (smoothing slider, Log y toggles).
      `/compare?ids=${byKind.training},${byKind.benchmark}`,
      "/evals",
      "/sessions",
      `/sessions/${sessionId}`,
      "/plans",
      `/plans/${planId}`,
      "/inbox",
      "/alerts",
      "/inbox?tab=rules",
      "/inbox?tab=history",
      "/hosts",
      `/hosts/${encodeURIComponent(host)}`,
      "/baselines",
      "/checkpoints",
    ],
  };
}
