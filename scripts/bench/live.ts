/**
 * Bench scenario `live`: freshness of the live path with N viewers on one run.
 *
 * A fresh embedded PostgreSQL and the production server (`npm run build` first); one worker on
 * `/ws/ingest` pushes `run.metrics` (one `loss` point a frame, value = frame number) at 10
 * frames/s to one training run; N viewers are `/ws/live` clients that merge snapshots and deltas
 * like the browser (test/support/live.ts) and replay the run page's HTTP requests: the initial
 * page reads (run, progress, metrics, evals) and the evals refetch on `evals`/`baselines` notices
 * (at most 1/s, as the page). Printed per N (quick: 1 and 50 viewers; --full: 1, 10, 50, 100):
 * push → every viewer has the new value p50/p99/max (ms; a push is "had" when every viewer's
 * merged copy holds its point), ack p99 (ms), ack → every viewer has it p50/p99 (ms: the live path
 * alone, without the ingest commit), server and PostgreSQL CPU (ms per s) and the
 * difference per extra viewer against N = 1, HTTP requests/s per viewer after the page load.
 * Targets beside the figures: 50 viewers p99 < 100 ms, < 0.2 HTTP req/s per viewer.
 * Figures are printed, never asserted; timings on a shared machine are noisy.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";

import { PrismaClient } from "@/generated/prisma/client";
import { startEmbeddedPostgres } from "@/lib/server/database/embedded";
import { migrateDeploy } from "@/lib/server/database/migrate";
import { createToken } from "@/lib/server/repositories/tokens";
import { createUser } from "@/lib/server/repositories/users";
import type { RunLiveView } from "@/lib/view-models/live";
import { openLiveViewer, openWorkerSocket } from "@/test/support/live";
import { signIn } from "@/test/support/people";
import { startTestServer } from "@/test/support/server";

const projectDir = path.resolve(import.meta.dirname, "../..");
const FRAMES_PER_S = 10;

/** Options every bench scenario receives. */
interface RunOptions {
  full: boolean;
  log: (line: string) => void;
}

/** CPU ms used so far by this process's descendants, split into PostgreSQL and the rest (the server). */
async function childCpuMs(): Promise<{ server: number; postgres: number }> {
  const tick = 100; // USER_HZ on Linux
  const procs = new Map<number, { ppid: number; comm: string; cpu: number }>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const f = stat.slice(close + 2).split(" ");
      procs.set(Number(name), {
        ppid: Number(f[1]),
        comm,
        cpu: ((Number(f[11]) + Number(f[12])) * 1000) / tick,
      });
    } catch {
      // exited meanwhile
    }
  }
  const out = { server: 0, postgres: 0 };
  for (const [pid, p] of procs) {
    let up = p.ppid;
    let mine = false;
    for (let hops = 0; hops < 6 && up > 1; hops++) {
      if (up === process.pid) {
        mine = true;
        break;
      }
      up = procs.get(up)?.ppid ?? 0;
    }
    if (!mine || pid === process.pid) continue;
    if (p.comm.startsWith("postgres")) out.postgres += p.cpu;
    else out.server += p.cpu;
  }
  return out;
}

const pct = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : "–");

/** Highest `loss` step in a merged run view (the frame number of the newest push it holds). */
function newestStep(data: unknown): number {
  const series = (data as RunLiveView | undefined)?.metrics.series.find((s) => s.key === "loss");
  const last = series?.points[series.points.length - 1];
  return last ? Number(last.step) : -1;
}

async function phase(opts: {
  url: string;
  token: string;
  cookie: string;
  viewers: number;
  seconds: number;
  log: (l: string) => void;
}) {
  const worker = await openWorkerSocket(opts.url, opts.token);
  const run = `live-bench-${opts.viewers}-${Date.now()}`;
  await worker.push({
    type: "run.start",
    run,
    name: `live bench, ${opts.viewers} viewers`,
    kind: "training",
    config: {},
  });
  await worker.push({ type: "run.metrics", run, points: [{ key: "loss", step: 0, value: 0 }] });
  const runId = Number(
    (
      (await (
        await fetch(`${opts.url}/api/runs?limit=200`, { headers: { cookie: opts.cookie } })
      ).json()) as { runs: Array<{ id: number; key: string }> }
    ).runs.find((r) => r.key === run)?.id,
  );
  const topic = `run:${runId}`;

  let httpRequests = 0;
  const get = async (p: string) => {
    httpRequests++;
    await (await fetch(`${opts.url}${p}`, { headers: { cookie: opts.cookie } })).arrayBuffer();
  };
  const pageLoad = () =>
    Promise.all(
      [
        `/api/runs/${runId}`,
        `/api/runs/${runId}/progress`,
        `/api/runs/${runId}/metrics`,
        `/api/runs/${runId}/evals`,
      ].map(get),
    );

  // seenAt[v][step] = when viewer v first held the push `step`.
  const sentAt = new Map<number, number>();
  const allSeen = new Map<number, number>();
  const seenCount = new Map<number, number>();
  const viewers = [];
  for (let v = 0; v < opts.viewers; v++) {
    await pageLoad();
    const viewer = await openLiveViewer(opts.url, opts.cookie, [topic, "evals", "baselines"]);
    let held = -1;
    viewer.onData = (_t, data, at) => {
      const step = newestStep(data);
      for (let s = held + 1; s <= step; s++) {
        const n = (seenCount.get(s) ?? 0) + 1;
        seenCount.set(s, n);
        if (n === opts.viewers) allSeen.set(s, at);
      }
      held = Math.max(held, step);
    };
    viewers.push(viewer);
  }
  const loadRequests = httpRequests;

  const ackLatency: number[] = [];
  const pending = new Map<string, { sent: number; step: number }>();
  const ackedAt = new Map<number, number>();
  worker.onAck = (ids, at) => {
    for (const id of ids) {
      const p = pending.get(id);
      if (p !== undefined) {
        ackLatency.push(at - p.sent);
        ackedAt.set(p.step, at);
      }
      pending.delete(id);
    }
  };
  const cpu0 = await childCpuMs();
  const t0 = Date.now();
  const frames = opts.seconds * FRAMES_PER_S;
  for (let i = 1; i <= frames; i++) {
    const due = t0 + (i * 1000) / FRAMES_PER_S;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    const at = Date.now();
    sentAt.set(i, at);
    pending.set(
      worker.send({ type: "run.metrics", run, points: [{ key: "loss", step: i, value: i }] }),
      { sent: at, step: i },
    );
  }
  await new Promise((r) => setTimeout(r, 1000));
  const elapsedS = (Date.now() - t0) / 1000;
  const cpu1 = await childCpuMs();
  const liveRequests = httpRequests - loadRequests;
  const fresh = [...sentAt]
    .map(([s, at]) => (allSeen.has(s) ? allSeen.get(s)! - at : Infinity))
    .sort((x, y) => x - y);
  // The live path alone: from the ack (the commit is visible) to every viewer holding the value.
  const afterAck = [...ackedAt]
    .filter(([s]) => allSeen.has(s))
    .map(([s, at]) => Math.max(0, allSeen.get(s)! - at))
    .sort((x, y) => x - y);
  const missed = fresh.filter((x) => !Number.isFinite(x)).length;
  const acks = ackLatency.sort((x, y) => x - y);
  for (const v of viewers) v.close();
  worker.close();
  return {
    viewers: opts.viewers,
    p50: pct(fresh, 0.5),
    p99: pct(fresh, 0.99),
    max: fresh[fresh.length - 1 - missed] ?? NaN,
    missed,
    ackP99: pct(acks, 0.99),
    afterAckP50: pct(afterAck, 0.5),
    afterAckP99: pct(afterAck, 0.99),
    serverCpuMsPerS: (cpu1.server - cpu0.server) / elapsedS,
    postgresCpuMsPerS: (cpu1.postgres - cpu0.postgres) / elapsedS,
    httpPerViewerPerS: liveRequests / opts.viewers / elapsedS,
    loadRequests,
    deltas: viewers.reduce((n, v) => n + v.stats.deltas, 0) / opts.viewers,
    resyncs: viewers.reduce((n, v) => n + v.stats.resyncs, 0),
  };
}

/** The `live` scenario (see the module comment). */
export const scenario = {
  name: "live",
  description:
    "push → value freshness, server CPU and HTTP requests with 1..N live viewers on one run (10 frames/s)",
  async run(opts: RunOptions): Promise<void> {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "pitwall-bench-live-"));
    const db = await startEmbeddedPostgres({
      dataDir,
      log: { info: () => undefined, warn: opts.log },
    });
    try {
      await migrateDeploy(projectDir, db.url);
      const prisma = new PrismaClient({
        adapter: new PrismaPg({ connectionString: db.url, max: 2 }),
      });
      const token = (await createToken(prisma, "live-bench")).token;
      const { password } = await createUser(prisma, {
        email: "bench@example.com",
        name: "bench",
        role: "viewer",
      });
      await prisma.$disconnect();
      const server = await startTestServer({ databaseUrl: db.url });
      try {
        const cookie = await signIn(server.url, "bench@example.com", password);
        const counts = opts.full ? [1, 10, 50, 100] : [1, 50];
        const seconds = opts.full ? 60 : 20;
        opts.log(
          `live: worker at ${FRAMES_PER_S} frames/s on one run, ${seconds} s per step; viewers = /ws/live clients merging deltas + the page's HTTP requests`,
        );
        opts.log(
          "viewers | push→all have it p50 / p99 / max ms (target 50 viewers p99 < 100) | ack p99 ms | ack→all have it p50 / p99 ms | server CPU ms/s | PostgreSQL CPU ms/s | HTTP req/s per viewer (target < 0.2) | deltas/viewer | resyncs",
        );
        let base: Awaited<ReturnType<typeof phase>> | null = null;
        for (const viewers of counts) {
          const r = await phase({
            url: server.url,
            token,
            cookie,
            viewers,
            seconds,
            log: opts.log,
          });
          base ??= r;
          const extra =
            viewers > base.viewers
              ? ` (+${fmt((r.serverCpuMsPerS - base.serverCpuMsPerS) / (viewers - base.viewers))} server ms/s per extra viewer)`
              : "";
          opts.log(
            `${String(viewers).padStart(7)} | ${fmt(r.p50)} / ${fmt(r.p99)} / ${fmt(r.max)}${r.missed ? ` (${r.missed} never seen)` : ""} | ${fmt(r.ackP99)} | ${fmt(r.afterAckP50)} / ${fmt(r.afterAckP99)} | ${fmt(r.serverCpuMsPerS)}${extra} | ${fmt(r.postgresCpuMsPerS)} | ${r.httpPerViewerPerS.toFixed(3)} (+${r.loadRequests / viewers} at page load) | ${fmt(r.deltas)} | ${r.resyncs}`,
          );
        }
      } finally {
        await server.stop();
      }
    } finally {
      await db.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  scenario.run({ full: process.argv.includes("--full"), log: (l) => console.log(l) }).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
