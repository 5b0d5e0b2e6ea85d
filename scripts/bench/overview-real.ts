/**
 * Bench scenario `overview-real` (`npm run bench overview-real [--quick|--full]`; issue 22 item
 * 5): the overview and the run list at 40,000 runs in a real mix, under load.
 *   - 200 hosts, each with its own token. ~38,000 finished runs (succeeded / failed / cancelled,
 *     every kind, over 60 days, two events and a worker each) seeded by SQL; 1,500 running runs
 *     pushed THROUGH INGEST by their hosts (run.start, progress of 4 workers with counters,
 *     metrics, an event), of which 500 are then made stale (their last push moved 2 h back).
 *   - Load while measuring: `fleet` at 20 % (100 workers; fleet/traffic.ts) and 50 live viewers on
 *     /ws/live subscribed to `runs`, each refetching /api/overview on a `changed` notice at most
 *     once per 2 s (what the overview page does, components/live/coalesce.ts).
 *   - Measured: GET /api/overview (computed for the request, as a script asks, and with
 *     `Cache-Control: max-age=1`, as the page refetches: an answer shared by the viewers may come
 *     back) and GET /api/runs (first page), the first call after a restart
 *     of the server and PostgreSQL separately (cold), then `--samples` calls each (quick 300, full
 *     2,000): p50/p99/max; the overview page in Chromium from navigation start to the first run
 *     row drawn, cold and warm.
 * Targets: API p99 < 200 ms, first run row < 1 s. Figures are printed, never asserted.
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { chromium } from "@playwright/test";
import { PrismaPg } from "@prisma/adapter-pg";
import WebSocket from "ws";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createUser } from "@/lib/server/repositories/users";
import { chromiumLaunchOptions } from "@/test/support/chromium";
import { signIn } from "@/test/support/people";

import { FleetTally, FleetWorker } from "./fleet/traffic";
import {
  fmt,
  fmtInt,
  isMain,
  onCleanup,
  percentile,
  printTable,
  runStandalone,
  sleep,
  startBenchEnvironment,
  type Scenario,
  type ScenarioOptions,
} from "./support";

const HOSTS = 200;
const FINISHED = 38_000;
const RUNNING = 1_500;
const STALE = 500;
const VIEWERS = 50;
const FLEET_WORKERS = 100;
const PASSWORD = "overview-real-bench-password";
const KINDS = ["extraction", "training", "benchmark", "generation", "eval"] as const;

/** Seeds the finished runs (and their events and workers) by SQL, spread over the hosts. */
async function seedFinished(pool: import("pg").Pool, hostIds: number[]): Promise<void> {
  await pool.query(
    `INSERT INTO "Run" (key, name, kind, status, "hostId", "ownerHostId", config, tags, "startedAt", "endedAt", "lastPushAt", total, unit)
     SELECT 'done-' || i, 'sweep ' || (i % 400) || ' run ' || i, ($3::text[])[1 + i % 5]::"RunKind",
            (CASE WHEN i % 50 = 0 THEN 'cancelled' WHEN i % 12 = 0 THEN 'failed' ELSE 'succeeded' END)::"RunStatus",
            h, h, jsonb_build_object('model', 'model-' || (i % 17), 'lr', 0.0001 * (1 + i % 5)), ARRAY['sweep-' || (i % 400)],
            now() - (i * 136 || ' seconds')::interval - interval '1 hour', now() - (i * 136 || ' seconds')::interval, now() - (i * 136 || ' seconds')::interval,
            1000, 'items'
       FROM generate_series(1, $1::int) AS i, LATERAL (SELECT ($2::int[])[1 + i % array_length($2::int[], 1)] AS h) AS x`,
    [FINISHED, hostIds, KINDS],
  );
  await pool.query(
    `INSERT INTO "RunEvent" ("runId", level, message, ts)
     SELECT r.id, 'info', m, r."endedAt" - o FROM "Run" r, (VALUES ('started', interval '1 hour'), ('finished', interval '0')) AS e(m, o) WHERE r.key LIKE 'done-%'`,
  );
  await pool.query(
    `INSERT INTO "WorkerProgress" ("runId", "workerId", "bootId", done, total, unit, counters, "lastPushAt")
     SELECT id, 'w0', 'b0', 1000, 1000, 'items', '{"s3.uploaded": 1000}', "endedAt" FROM "Run" WHERE key LIKE 'done-%'`,
  );
}

/** Each host pushes its share of the running runs through ingest; resolves once all are acked. */
async function pushRunning(url: string, tokens: string[]): Promise<void> {
  const perHost = Math.ceil(RUNNING / tokens.length);
  await Promise.all(
    tokens.map(async (token, h) => {
      const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws/ingest`, {
        headers: { authorization: `Bearer ${token}` },
        perMessageDeflate: false,
      });
      await new Promise<void>((resolve, reject) =>
        ws.once("open", () => resolve()).once("error", reject),
      );
      const frames: string[] = [];
      let id = 0;
      const add = (body: string) => frames.push(`{"v":1,"id":"seed-${h}-${++id}",${body}}`);
      for (let j = 0; j < perHost; j++) {
        const n = h * perHost + j;
        if (n >= RUNNING) break;
        const run = `live-${n}`;
        const kind = KINDS[n % KINDS.length]!;
        add(
          `"type":"run.start","run":"${run}","name":"${kind} job ${n}","kind":"${kind}","total":914000,"unit":"samples","stallAfterS":3600,"config":{"model":"model-${n % 17}"}`,
        );
        for (let w = 0; w < 4; w++)
          add(
            `"type":"run.progress","run":"${run}","workerId":"w${w}","bootId":"b0","done":${1000 * (n % 97) + w * 10},"total":228500,"counters":{"s3.uploaded":${500 * w + n},"s3.failed":${n % 3}}`,
          );
        add(
          `"type":"run.metrics","run":"${run}","points":[{"key":"loss","step":${n},"value":${(2 / (1 + n / 100)).toFixed(5)}},{"key":"lr","step":${n},"value":0.0003}]`,
        );
        add(
          `"type":"run.event","run":"${run}","level":"info","message":"worker w0 resumed at ${n}"`,
        );
      }
      let acked = 0;
      if (!frames.length) return void ws.close();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`seed host ${h}: ${acked} of ${frames.length} frames acked after 120 s`),
            ),
          120_000,
        );
        ws.on("message", (d) => {
          const m = JSON.parse(d.toString()) as {
            type: string;
            ids?: string[];
            code?: string;
            message?: string;
          };
          if (m.type === "error") reject(new Error(`seed host ${h}: ${m.code}: ${m.message}`));
          if (m.type !== "ack") return;
          acked += m.ids?.length ?? 0;
          if (acked === frames.length) {
            clearTimeout(timer);
            resolve();
          }
        });
        // run.start first, then the rest (a run must exist before its progress).
        for (const f of frames) ws.send(f);
      });
      ws.close();
    }),
  );
}

/** A viewer like the overview page: subscribed to `runs`, refetching /api/overview at most once per 2 s on a notice. */
function openViewer(url: string, cookie: string, stats: { refetches: number }): () => void {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws/live`, {
    headers: { cookie, origin: url },
  });
  let last = 0;
  let pending: NodeJS.Timeout | null = null;
  const refetch = () => {
    pending = null;
    last = performance.now();
    stats.refetches++;
    // As the page asks (lib/api/fetchers/overview.ts): a shared answer up to 1 s old is fine.
    void fetch(`${url}/api/overview`, { headers: { cookie, "cache-control": "max-age=1" } })
      .then((r) => r.text())
      .catch(() => undefined);
  };
  ws.on("open", () => ws.send(JSON.stringify({ type: "subscribe", topics: ["runs"] })));
  ws.on("message", (d) => {
    const m = JSON.parse(d.toString()) as { type: string; topic?: string };
    if (m.type !== "changed" || m.topic !== "runs" || pending) return;
    pending = setTimeout(refetch, Math.max(0, 2000 - (performance.now() - last)));
  });
  ws.on("error", () => undefined);
  return () => {
    if (pending) clearTimeout(pending);
    ws.terminate();
  };
}

/** Page script: when the first overview run row is in the DOM (performance.now(), 0 = navigation start). */
const WATCH_FIRST_ROW = `(() => {
  const check = () => {
    if (document.querySelector('[data-testid="active-run"]')) return void (window.__firstRow = performance.now());
    setTimeout(check, 5);
  };
  setTimeout(check, 5);
})();`;

async function overviewReal({ full, log }: ScenarioOptions): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { samples: { type: "string" } },
    strict: false,
    allowPositionals: true,
  });
  const samples = Number(values.samples) > 0 ? Number(values.samples) : full ? 2000 : 300;
  const env = await startBenchEnvironment({ server: true, log });
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: env.databaseUrl, max: 2 }),
  });
  const tokens: string[] = [];
  try {
    for (let h = 0; h < HOSTS; h++)
      tokens.push((await createToken(prisma, `gpu-${String(h).padStart(3, "0")}`)).token);
    await createUser(prisma, {
      email: "bench@example.com",
      name: "Bench",
      role: "viewer",
      password: PASSWORD,
    });
  } finally {
    await prisma.$disconnect();
  }
  const hostIds = (
    await env.pool.query<{ id: number }>(
      `SELECT id FROM "Host" WHERE name LIKE 'gpu-%' ORDER BY name`,
    )
  ).rows.map((r) => r.id);
  let t0 = performance.now();
  await seedFinished(env.pool, hostIds);
  log(
    `seeded ${fmtInt(FINISHED)} finished runs by SQL in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );
  t0 = performance.now();
  await pushRunning(env.server!.url, tokens);
  await env.pool.query(
    `UPDATE "Run" SET "lastPushAt" = now() - interval '2 hours', "stallAfterS" = 600 WHERE key LIKE 'live-%' AND substr(key, 6)::int % 3 = 0 AND substr(key, 6)::int < $1 * 3`,
    [STALE],
  );
  log(
    `pushed ${fmtInt(RUNNING)} running runs through ingest in ${fmt((performance.now() - t0) / 1000, 1)} s (${STALE} then made stale); ${HOSTS} hosts`,
  );
  await env.pool.query(`VACUUM ANALYZE`);

  // Cold: the first calls after a restart of the server and PostgreSQL, before any load.
  await env.restart();
  const url = env.server!.url;
  const cookie = await signIn(url, "bench@example.com", PASSWORD);
  // A failed answer is timed and counted, not fatal: under load it is a finding to print.
  const failures = new Map<string, number>();
  const get = async (path: string, headers: Record<string, string> = {}): Promise<number> => {
    const s = performance.now();
    const res = await fetch(`${url}${path}`, { headers: { cookie, ...headers } });
    const text = await res.text();
    if (!res.ok) {
      const what =
        `${path.split("?")[0]} HTTP ${res.status} ${/"code":"([^"]+)"/.exec(text)?.[1] ?? ""}`.trim();
      failures.set(what, (failures.get(what) ?? 0) + 1);
    }
    return performance.now() - s;
  };
  const coldOverview = await get("/api/overview");
  const coldRuns = await get("/api/runs");
  const browser = await chromium.launch(chromiumLaunchOptions);
  onCleanup("chromium", () => browser.close());
  const context = await browser.newContext({
    baseURL: url,
    viewport: { width: 1440, height: 900 },
  });
  const eq = cookie.indexOf("=");
  await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url }]);
  const firstRow = async (): Promise<number> => {
    const page = await context.newPage();
    try {
      await page.addInitScript(WATCH_FIRST_ROW);
      await page.goto("/", { waitUntil: "commit" });
      await page.waitForFunction("window.__firstRow !== undefined", undefined, {
        timeout: 60_000,
        polling: 50,
      });
      return (await page.evaluate("window.__firstRow")) as number;
    } finally {
      await page.close();
    }
  };
  const coldPage = await firstRow();
  log(
    `cold: /api/overview ${fmtInt(coldOverview)} ms, /api/runs ${fmtInt(coldRuns)} ms, overview page first row ${fmtInt(coldPage)} ms; starting the load`,
  );

  // Load: fleet at 20 % and 50 viewers.
  const tally = new FleetTally();
  const fleetTokens = tokens.slice(0, FLEET_WORKERS);
  const workers = fleetTokens.map(
    (t, i) => new FleetWorker(url, t, i, `overview-fleet-${i}`, tally),
  );
  onCleanup("overview fleet", async () => workers.forEach((w) => w.close()));
  for (let i = 0; i < workers.length; i += 20)
    await Promise.all(workers.slice(i, i + 20).map((w) => w.open()));
  const viewerStats = { refetches: 0 };
  const closers = Array.from({ length: VIEWERS }, () => openViewer(url, cookie, viewerStats));
  onCleanup("overview viewers", async () => closers.forEach((c) => c()));
  let loadOn = true;
  const fleetLoop = (async () => {
    const start = performance.now();
    workers.forEach((w, i) => w.schedule(start, 1, i / workers.length));
    while (loadOn) {
      const now = performance.now();
      for (const w of workers) w.pump(now, Infinity);
      await sleep(5);
    }
  })();
  await sleep(5000); // the load settles
  log(
    `load on: ${FLEET_WORKERS} fleet workers, ${VIEWERS} viewers; measuring ${samples} calls of each API, then the page`,
  );
  const loadStart = performance.now();
  const refetch0 = viewerStats.refetches;
  const overview = new Float64Array(samples);
  const overviewLive = new Float64Array(samples);
  const runs = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    overview[i] = await get("/api/overview");
    overviewLive[i] = await get("/api/overview", { "cache-control": "max-age=1" });
    runs[i] = await get("/api/runs");
  }
  const pagesWarm = new Float64Array(full ? 20 : 5);
  for (let i = 0; i < pagesWarm.length; i++) pagesWarm[i] = await firstRow();
  const loadS = (performance.now() - loadStart) / 1000;
  loadOn = false;
  await fleetLoop;
  closers.forEach((c) => c());
  workers.forEach((w) => w.close());
  overview.sort();
  overviewLive.sort();
  runs.sort();
  pagesWarm.sort();
  const dist = (a: Float64Array, target: number) =>
    `p50 ${fmt(percentile(a, 0.5), 0)} | p99 ${fmt(percentile(a, 0.99), 0)} | max ${fmt(a[a.length - 1]!, 0)} ms (${fmtInt(a.length)}; target p99 < ${target} ms: ${percentile(a, 0.99) < target ? "met" : "NOT met"})`;
  const fleetLat = Float64Array.from(tally.latencies).sort();
  printTable(
    `overview-real: ${fmtInt(FINISHED + RUNNING)} runs (${fmtInt(FINISHED)} finished, ${fmtInt(RUNNING - STALE)} running, ${STALE} stale) on ${HOSTS} hosts + ${FLEET_WORKERS} fleet runs; ${os.cpus().length} cores, loadavg ${os
      .loadavg()
      .map((x) => fmt(x, 2))
      .join(" ")}`,
    [
      [
        "cold (first after a server + PostgreSQL restart): /api/overview | /api/runs | page first row",
        `${fmtInt(coldOverview)} | ${fmtInt(coldRuns)} | ${fmtInt(coldPage)} ms`,
      ],
      ["GET /api/overview under load (computed for the request: a script)", dist(overview, 200)],
      [
        "GET /api/overview under load as the page refetches (max-age=1: may be shared)",
        dist(overviewLive, 200),
      ],
      ["GET /api/runs (first page) under load", dist(runs, 200)],
      [
        "overview page, first run row drawn, warm, under load",
        `p50 ${fmtInt(percentile(pagesWarm, 0.5))} | max ${fmtInt(pagesWarm[pagesWarm.length - 1]!)} ms (${pagesWarm.length} loads; target < 1,000 ms: ${pagesWarm[pagesWarm.length - 1]! < 1000 ? "met" : "NOT met"})`,
      ],
      [
        "failed answers (timed above too)",
        failures.size ? [...failures].map(([k, n]) => `${k} x ${n}`).join(", ") : "none",
      ],
      [
        "load: fleet acks (p99) | viewers' /api/overview refetches per s",
        `${fmt(percentile(fleetLat, 0.99), 0)} ms over ${fmtInt(fleetLat.length)} frames | ${fmt((viewerStats.refetches - refetch0) / loadS, 1)}/s from ${VIEWERS} viewers`,
      ],
    ],
    log,
  );
}

/** The `overview-real` scenario (see the module comment). */
export const scenario: Scenario = {
  name: "overview-real",
  description:
    "40,000 runs in a real mix on 200 hosts under fleet load (20 %) and 50 live viewers: /api/overview, /api/runs p99 (target < 200 ms), overview page first run row (< 1 s), cold and warm",
  run: overviewReal,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
