/**
 * Bench scenario `series-cold` (`npm run bench series-cold [--quick|--full]`; issue 22 item 4):
 * what a person waits for on a run page with many keys, cold and warm. Two training runs are
 * filled THROUGH INGEST (push-run.ts; a spike and NaN points included): "wide" with 200 keys and
 * "long" with 20 keys (full: 100k and 1M steps; quick: 10k and 100k). Then:
 *   - the chart API for all keys (`GET /api/runs/:id/metrics`), first after a restart of the
 *     server AND PostgreSQL (cold; the OS page cache is kept), then warm (`--samples` calls);
 *   - 100 distinct zoom ranges on "long" (all keys, `fromStep`/`toStep`), each asked once;
 *   - the run page in Chromium (1440 x 900): from navigation start to every chart of the first
 *     viewport drawn and to all charts drawn (a chart is drawn when its `figure[data-key]` holds
 *     a recharts line path; a chart the page has not drawn yet holds a `[data-chart-pending]`
 *     placeholder, which counts as not drawn), cold (after a restart, a new browser) and warm
 *     (new pages of the same browser). The page is never scrolled: charts below the first
 *     viewport are drawn by the page in the background.
 * Targets: cold page < 1.5 s, warm page < 500 ms, all-keys API p95 < 300 ms warm, zoom p99 < 150
 * ms, all 200 charts drawn < 3 s warm. Figures are printed, never asserted.
 * Flags: --scale (multiplies the step counts, e.g. 0.1 for a smoke run) --samples (warm API calls per run; quick 100, full 2000) --pages (warm page loads; quick 5, full 20)
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { chromium, type Browser } from "@playwright/test";
import { PrismaPg } from "@prisma/adapter-pg";

import { PrismaClient } from "@/generated/prisma/client";
import { createUser } from "@/lib/server/repositories/users";
import { chromiumLaunchOptions } from "@/test/support/chromium";
import { signIn } from "@/test/support/people";

import { pushRun } from "./push-run";
import {
  fmt,
  fmtInt,
  isMain,
  onCleanup,
  percentile,
  printTable,
  runStandalone,
  startBenchEnvironment,
  type Scenario,
  type ScenarioOptions,
} from "./support";

const PASSWORD = "series-cold-bench-password";

/** Per target: the figure, the target, met or not. */
type Row = [string, string] | null;

async function seriesCold({ full, log }: ScenarioOptions): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { samples: { type: "string" }, pages: { type: "string" }, scale: { type: "string" } },
    strict: false,
    allowPositionals: true,
  });
  const samples = Number(values.samples) > 0 ? Number(values.samples) : full ? 2000 : 100;
  const pages = Number(values.pages) > 0 ? Number(values.pages) : full ? 20 : 5;
  const scale = Number(values.scale) > 0 ? Number(values.scale) : 1;
  const wide = {
    keys: Array.from({ length: 200 }, (_, i) =>
      i === 0 ? "loss" : i === 1 ? "grad_norm" : `layer_${String(i).padStart(3, "0")}/act_norm`,
    ),
    steps: Math.round((full ? 100_000 : 10_000) * scale),
  };
  const long = {
    keys: Array.from({ length: 20 }, (_, i) =>
      i === 0 ? "loss" : i === 1 ? "grad_norm" : `eval/metric_${String(i).padStart(2, "0")}`,
    ),
    steps: Math.round((full ? 1_000_000 : 100_000) * scale),
  };
  const env = await startBenchEnvironment({ server: true, log });
  log(
    `machine: ${os.cpus().length} cores, loadavg ${os
      .loadavg()
      .map((x) => fmt(x, 2))
      .join(" ")}`,
  );

  for (const [label, r] of [
    ["wide", wide],
    ["long", long],
  ] as const) {
    const perS = await pushRun({
      url: env.server!.url,
      token: env.token,
      runKey: `series-cold-${label}`,
      name: `series-cold ${label}`,
      keys: r.keys,
      steps: r.steps,
    });
    log(
      `pushed "${label}" through ingest: ${r.keys.length} keys x ${fmtInt(r.steps)} steps = ${fmtInt(r.keys.length * r.steps)} points at ${fmtInt(perS)} points/s`,
    );
  }
  const ids = new Map(
    (
      await env.pool.query<{ key: string; id: number }>(
        `SELECT key, id FROM "Run" WHERE key LIKE 'series-cold-%'`,
      )
    ).rows.map((x) => [x.key, x.id]),
  );
  const wideId = ids.get("series-cold-wide")!;
  const longId = ids.get("series-cold-long")!;
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: env.databaseUrl, max: 1 }),
  });
  await createUser(prisma, {
    email: "bench@example.com",
    name: "Bench",
    role: "viewer",
    password: PASSWORD,
  });
  await prisma.$disconnect();

  const api = async (runId: number, query = ""): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${env.server!.url}/api/runs/${runId}/metrics${query}`, {
      headers: { authorization: `Bearer ${env.token}` },
    });
    const body = await res.text();
    if (!res.ok) throw new Error(`metrics API: HTTP ${res.status} ${body.slice(0, 200)}`);
    return performance.now() - t0;
  };

  // Cold API: the first calls after a restart of both.
  await env.restart();
  const coldApiWide = await api(wideId);
  const coldApiLong = await api(longId);
  const warm = (runId: number) => timeSeq(samples, () => api(runId));
  const warmWide = await warm(wideId);
  const warmLong = await warm(longId);
  const zooms = Array.from({ length: 100 }, (_, i) => {
    const width = Math.max(100, Math.floor((((i * 7919) % 1000) / 1000) * (long.steps / 10)));
    const from = Math.floor((((i * 104_729) % 1000) / 1000) * (long.steps - width));
    return `?fromStep=${from}&toStep=${from + width}`;
  });
  const zoom = new Float64Array(zooms.length);
  for (const [i, q] of zooms.entries()) zoom[i] = await api(longId, q);
  zoom.sort();
  // Printed now too, so a page that times out below does not lose them.
  log(
    `chart API: cold wide ${fmtInt(coldApiWide)} ms, long ${fmtInt(coldApiLong)} ms; warm wide p50 ${fmt(percentile(warmWide, 0.5), 0)} p95 ${fmt(percentile(warmWide, 0.95), 0)} ms, long p50 ${fmt(percentile(warmLong, 0.5), 0)} p95 ${fmt(percentile(warmLong, 0.95), 0)} ms; zoom p50 ${fmt(percentile(zoom, 0.5), 0)} p99 ${fmt(percentile(zoom, 0.99), 0)} ms`,
  );

  // Pages: cold after a restart (new browser), then warm.
  const browserPage = async (browser: Browser, runId: number) => {
    const cookie = await signIn(env.server!.url, "bench@example.com", PASSWORD);
    const context = await browser.newContext({
      baseURL: env.server!.url,
      viewport: { width: 1440, height: 900 },
    });
    const eq = cookie.indexOf("=");
    await context.addCookies([
      { name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: env.server!.url },
    ]);
    return { context, time: () => pageTimes(context, `/runs/${runId}`) };
  };
  const pageFigures = new Map<string, { cold: PageTime; warm: PageTime[] }>();
  for (const [label, runId, keys] of [
    ["wide", wideId, wide.keys.length],
    ["long", longId, long.keys.length],
  ] as const) {
    await env.restart();
    const browser = await chromium.launch(chromiumLaunchOptions);
    onCleanup(`chromium ${label}`, () => browser.close());
    const { context, time } = await browserPage(browser, runId);
    const cold = await time();
    const warmTimes: PageTime[] = [];
    for (let i = 0; i < pages; i++) warmTimes.push(await time());
    await context.close();
    await browser.close();
    if (cold.charts !== keys)
      log(`  note: the "${label}" page drew ${cold.charts} charts for ${keys} keys`);
    pageFigures.set(label, { cold, warm: warmTimes });
  }

  const ms = (x: number) => `${fmtInt(x)} ms`;
  const dist = (a: Float64Array) =>
    `p50 ${fmt(percentile(a, 0.5), 0)} | p95 ${fmt(percentile(a, 0.95), 0)} | p99 ${fmt(percentile(a, 0.99), 0)} | max ${fmt(a[a.length - 1] ?? NaN, 0)} ms (${fmtInt(a.length)} calls)`;
  const met = (ok: boolean) => (ok ? "met" : "NOT met");
  const rows: Row[] = [
    [
      "chart API, all keys, cold (first call after restart): wide / long",
      `${ms(coldApiWide)} / ${ms(coldApiLong)}`,
    ],
    [
      `chart API, all keys, warm, wide (target p95 < 300 ms: ${met(percentile(warmWide, 0.95) < 300)})`,
      dist(warmWide),
    ],
    [
      `chart API, all keys, warm, long (target p95 < 300 ms: ${met(percentile(warmLong, 0.95) < 300)})`,
      dist(warmLong),
    ],
    [
      `100 distinct zoom ranges on long, all keys (target p99 < 150 ms: ${met(percentile(zoom, 0.99) < 150)})`,
      dist(zoom),
    ],
  ];
  for (const [label, f] of pageFigures) {
    const fv = Float64Array.from(f.warm.map((w) => w.firstViewportMs)).sort();
    const all = Float64Array.from(f.warm.map((w) => w.allMs)).sort();
    rows.push(
      null,
      [
        `page ${label}: cold, first viewport drawn (target < 1.5 s: ${met(f.cold.firstViewportMs < 1500)})`,
        `${ms(f.cold.firstViewportMs)} (all ${f.cold.charts} charts ${ms(f.cold.allMs)})`,
      ],
      [
        `page ${label}: warm, first viewport drawn (target < 500 ms: ${met(percentile(fv, 0.99) < 500)})`,
        `p50 ${ms(percentile(fv, 0.5))} | max ${ms(fv[fv.length - 1]!)} (${fv.length} loads)`,
      ],
      [
        `page ${label}: warm, all charts drawn${label === "wide" ? ` (target < 3 s: ${met(all[all.length - 1]! < 3000)})` : ""}`,
        `p50 ${ms(percentile(all, 0.5))} | max ${ms(all[all.length - 1]!)}`,
      ],
    );
  }
  printTable(
    `series-cold: wide ${wide.keys.length} keys x ${fmtInt(wide.steps)} steps, long ${long.keys.length} keys x ${fmtInt(long.steps)} steps, pushed through ingest`,
    rows,
    log,
  );
}

async function timeSeq(n: number, fn: () => Promise<number>): Promise<Float64Array> {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = await fn();
  return out.sort();
}

/** Navigation start to: every chart of the first viewport drawn, all charts drawn; and how many charts. */
interface PageTime {
  firstViewportMs: number;
  allMs: number;
  charts: number;
}

/** Page script: records when every chart of the first viewport, then every chart, holds a drawn line (performance.now(), 0 = navigation start). */
const WATCH_CHARTS = `(() => {
  const w = window;
  w.__charts = {};
  const drawn = (f) => !!f.querySelector("path.recharts-line-curve[d]:not([d=''])");
  const check = () => {
    const figs = [...document.querySelectorAll("figure[data-key]")];
    const ready = figs.length > 0 && !document.querySelector("[aria-busy='true']");
    // A chart not drawn yet (the page draws the charts in view first) holds a [data-chart-pending] placeholder.
    const pending = [...document.querySelectorAll("[data-chart-pending]")];
    const inView = (e) => e.getBoundingClientRect().top < window.innerHeight;
    if (ready && w.__charts.fv === undefined && !pending.some(inView) && figs.filter(inView).every(drawn)) w.__charts.fv = performance.now();
    if (ready && pending.length === 0 && figs.every(drawn)) {
      w.__charts.all = performance.now();
      w.__charts.n = figs.length;
      return;
    }
    setTimeout(check, 10);
  };
  setTimeout(check, 10);
})();`;

/** Opens `path` in a new page of `context` and times the charts (see the module comment). @throws when not all are drawn in 60 s. */
async function pageTimes(
  context: import("@playwright/test").BrowserContext,
  path: string,
): Promise<PageTime> {
  const page = await context.newPage();
  try {
    // Watches from the first script on: both moments in the page's own clock (0 = navigation start).
    // A string, not a function: tsx wraps named functions in a `__name` helper the page lacks.
    await page.addInitScript(WATCH_CHARTS);
    await page.goto(path, { waitUntil: "commit" });
    await page
      .waitForFunction(
        () => (window as unknown as { __charts?: { all?: number } }).__charts?.all !== undefined,
        undefined,
        { timeout: 60_000, polling: 100 },
      )
      .catch(async (err: Error) => {
        const state = await page.evaluate(() => ({
          figures: document.querySelectorAll("figure[data-key]").length,
          drawn: [...document.querySelectorAll("figure[data-key]")].filter((f) =>
            f.querySelector("path.recharts-line-curve"),
          ).length,
          watcher: (window as unknown as { __charts?: unknown }).__charts,
          busy: [...document.querySelectorAll("[aria-busy='true']")].map((e) =>
            e.textContent?.slice(0, 60),
          ),
          undrawn: [...document.querySelectorAll("figure[data-key]")]
            .filter((f) => !f.querySelector("path.recharts-line-curve"))
            .slice(0, 3)
            .map((f) => f.outerHTML.slice(0, 300)),
        }));
        throw new Error(`${err.message}; page state: ${JSON.stringify(state)}`);
      });
    const c = await page.evaluate(
      () => (window as unknown as { __charts: { fv: number; all: number; n: number } }).__charts,
    );
    return { firstViewportMs: c.fv ?? c.all, allMs: c.all, charts: c.n };
  } finally {
    await page.close();
  }
}

/** The `series-cold` scenario (see the module comment). */
export const scenario: Scenario = {
  name: "series-cold",
  description:
    "runs pushed through ingest (200 keys x 100k, 20 keys x 1M; quick 10x smaller): all-keys chart API and the run page in Chromium, cold after a server + PostgreSQL restart and warm, 100 zoom ranges",
  run: seriesCold,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
