/**
 * Bench scenario `live-browser` (`npm run bench live-browser [--quick|--full]`; issue 22 item 3):
 * what a person watching a training run sees. One run with 50 keys and a history pushed through
 * ingest (full 100k steps, quick 2k), then 8 ranks (each its own socket) write it at 10 Hz, each
 * rank its share of the 50 keys per step, while a background fleet (fleet/traffic.ts, 20 % of the
 * full 500 workers: 100 workers at 1 step/s, quick 40) writes other runs. Real Chromium pages
 * (Playwright; `--pages`, default 3, then with --full a reference round with 10) show the run page; in each,
 * a MutationObserver notes when the `loss` chart's `data-last-step` reaches each step.
 *
 * Latency is open-loop: from the step's SCHEDULED send time (rank 0 writes `loss`) to the moment
 * the page's chart holds it (one clock: Date.now() in Node, performance.timeOrigin +
 * performance.now() in the page, both this machine's epoch ms). The first measured step is also
 * printed per page (cold). Anchors beside it, the parts that are not rendering: scheduled send ->
 * what carries the step into the page, a live WebSocket message (a `snapshot`, or a `delta` whose
 * patch names the step: `"step":N` or `"step":{"r":N}`, any key) or the response of a metrics
 * refetch, and scheduled send -> ack of rank 0's frame in Node. Also: long tasks in the pages (PerformanceObserver
 * "longtask"), HTTP requests per page per second during the measurement, and the load average.
 * Targets: push -> drawn p99 < 250 ms from >= 3,000 samples, long-task p99 < 100 ms, < 0.2
 * requests/s per page. Figures are printed, never asserted.
 * Flags: --duration (measured seconds of the main round; quick 70 = 2,100 samples with 3 pages,
 * full 120) --pages (3) --history (steps) --reference (the 10-page round, 20 s, also in quick;
 * --full always runs it, 60 s)
 */

import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { chromium, type Page } from "@playwright/test";
import { PrismaPg } from "@prisma/adapter-pg";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createUser } from "@/lib/server/repositories/users";
import { chromiumLaunchOptions } from "@/test/support/chromium";
import { signIn } from "@/test/support/people";

import { FleetTally, FleetWorker } from "./fleet/traffic";
import { KEYS } from "./live-browser/constants";
import { WATCH, type PageFigures } from "./live-browser/page-watch";
import { writeRanks } from "./live-browser/ranks";
import { printRound } from "./live-browser/rounds";
import { pushRun } from "./push-run";
import {
  fmt,
  fmtInt,
  isMain,
  onCleanup,
  runStandalone,
  sleep,
  startBenchEnvironment,
  type Scenario,
  type ScenarioOptions,
} from "./support";

const PASSWORD = "live-browser-bench-password";

/**
 * With `PITWALL_BENCH_PAGE_PROF=<dir>`, records a CPU profile of the page's renderer (Chrome
 * DevTools Protocol) until `stop(file, page)` writes it into that directory with a screenshot of
 * `page` beside it; otherwise null.
 */
async function startPageProfile(
  page: Page,
): Promise<{ stop: (file: string, page: Page) => Promise<void> } | null> {
  const dir = process.env.PITWALL_BENCH_PAGE_PROF;
  if (!dir) return null;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.start");
  return {
    stop: async (file, shown) => {
      const { profile } = await cdp.send("Profiler.stop");
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, file), JSON.stringify(profile));
      await shown.screenshot({ path: path.join(dir, file.replace(/\.cpuprofile$/, ".png")) });
    },
  };
}

async function liveBrowser({ full, log }: ScenarioOptions): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      duration: { type: "string" },
      pages: { type: "string" },
      history: { type: "string" },
      reference: { type: "boolean" },
    },
    strict: false,
    allowPositionals: true,
  });
  const num = (v: unknown, dflt: number) =>
    typeof v === "string" && Number(v) > 0 ? Number(v) : dflt;
  const durationS = num(values.duration, full ? 120 : 70);
  const refDurationS = full ? 60 : 20;
  const pages = num(values.pages, 3);
  const history = num(values.history, full ? 100_000 : 2_000);
  const fleetWorkers = full ? 100 : 40;
  const tStart = performance.now();
  const env = await startBenchEnvironment({ server: true, log });
  const url = env.server!.url;
  log(
    `machine: ${os.cpus().length} cores, loadavg ${os
      .loadavg()
      .map((x) => fmt(x, 2))
      .join(" ")}`,
  );

  const runKey = "live-browser";
  const perS = await pushRun({
    url,
    token: env.token,
    runKey,
    name: "live-browser",
    keys: KEYS,
    steps: history,
  });
  log(
    `history: ${KEYS.length} keys x ${fmtInt(history)} steps through ingest at ${fmtInt(perS)} points/s`,
  );
  const runId = (
    await env.pool.query<{ id: number }>(`SELECT id FROM "Run" WHERE key = $1`, [runKey])
  ).rows[0]!.id;
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: env.databaseUrl, max: 1 }),
  });
  await createUser(prisma, {
    email: "live@example.com",
    name: "Live",
    role: "viewer",
    password: PASSWORD,
  });
  const fleetTokens = await Promise.all(
    Array.from({ length: fleetWorkers }, (_, i) =>
      createToken(prisma, `fleet-bg-${i}`).then((t) => t.token),
    ),
  );
  await prisma.$disconnect();

  // Background fleet: 20 % of the full 500 workers at 1 step/s.
  const tally = new FleetTally();
  const fleet = fleetTokens.map((t, i) => new FleetWorker(url, t, i, `bg-${i}`, tally));
  onCleanup("fleet sockets", async () => fleet.forEach((w) => w.close()));
  for (let i = 0; i < fleet.length; i += 20)
    await Promise.all(fleet.slice(i, i + 20).map((w) => w.open()));
  const bgT0 = performance.now();
  fleet.forEach((w, i) => w.schedule(bgT0, 1, i / fleet.length));
  let bgStop = false;
  const bgLoop = (async () => {
    while (!bgStop) {
      const now = performance.now();
      for (const w of fleet) w.pump(now, Infinity);
      await sleep(20);
    }
  })();
  log(
    `background fleet: ${fleet.length} workers at 1 step/s (30 keys each) (${fmt((performance.now() - tStart) / 1000, 0)} s)`,
  );

  let index = 0;
  let nextStep = history;
  const plan: Array<readonly [number, number]> = [[pages, durationS]];
  if (full || values.reference === true) plan.push([10, refDurationS]);
  for (const [n, seconds] of plan) {
    const browser = await chromium.launch(chromiumLaunchOptions);
    onCleanup(`chromium ${n}`, () => browser.close());
    const cookie = await signIn(url, "live@example.com", PASSWORD);
    const eq = cookie.indexOf("=");
    const open: Array<{
      page: Page;
      requests: number;
      paths: Map<string, number>;
      armed: boolean;
    }> = [];
    for (let i = 0; i < n; i++) {
      const context = await browser.newContext({
        baseURL: url,
        viewport: { width: 1440, height: 900 },
      });
      await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url }]);
      const page = await context.newPage();
      await page.addInitScript(WATCH);
      const entry = { page, requests: 0, paths: new Map<string, number>(), armed: false };
      page.on("request", (req) => {
        if (!entry.armed) return;
        entry.requests++;
        // Path with ids folded ("/api/runs/:id/metrics"), to say which reads the page repeats.
        const path = new URL(req.url()).pathname.replace(/\/\d+(?=\/|$)/g, "/:id");
        entry.paths.set(path, (entry.paths.get(path) ?? 0) + 1);
      });
      await page.goto(`/runs/${runId}`);
      await page.waitForFunction(
        () => document.querySelector('figure[data-key="loss"][data-last-step]') !== null,
        undefined,
        { timeout: 60_000, polling: 200 },
      );
      open.push(entry);
      log(`page ${i + 1} of ${n} drawn (${fmt((performance.now() - tStart) / 1000, 0)} s)`);
    }
    log(`${n} pages open and drawn; writing ${seconds} s`);
    await sleep(2000); // let the pages settle (first reads, live subscription)
    const armedAt = performance.now();
    const profiling = await startPageProfile(open[0]!.page);
    for (const o of open) {
      o.armed = true;
      await o.page.evaluate(() => ((window as unknown as { __armed: boolean }).__armed = true));
    }
    const r = await writeRanks(url, env.token, runKey, nextStep, seconds);
    nextStep = r.nextStep;
    await profiling?.stop(`live-browser-page-${n}.cpuprofile`, open[0]!.page);
    // Drain: wait (up to 60 s) until every page drew the last step, so late steps count as late, not lost.
    const lastStep = r.nextStep - 1;
    const drainT0 = performance.now();
    await Promise.all(
      open.map((o) =>
        o.page
          .waitForFunction(`window.__seen && window.__seen[${lastStep}] !== undefined`, undefined, {
            timeout: 60_000,
            polling: 500,
          })
          .catch(() => undefined),
      ),
    );
    log(`pages drained in ${fmt((performance.now() - drainT0) / 1000, 0)} s after the last push`);
    // Requests are counted from arming to here (writing and draining), so per second of that.
    const armedS = (performance.now() - armedAt) / 1000;
    for (const o of open) o.armed = false;
    const paths = new Map<string, number>();
    for (const o of open) for (const [k, v] of o.paths) paths.set(k, (paths.get(k) ?? 0) + v);
    if (paths.size > 0)
      log(
        `requests during the round (all pages): ${[...paths]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 6)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`,
      );
    const figures: PageFigures[] = [];
    for (const o of open) {
      const got = await o.page.evaluate(() => {
        const w = window as unknown as {
          __seen: Record<string, number>;
          __msg: Record<string, number>;
          __long: number[];
          __wire: Record<string, { n: number; bytes: number }>;
        };
        return { seen: w.__seen, msg: w.__msg, long: w.__long, wire: w.__wire };
      });
      const latencies: number[] = [];
      const messageLatencies: number[] = [];
      for (const [step, at] of r.scheduled) {
        const seen = got.seen[String(step)];
        latencies.push(seen === undefined ? Infinity : seen - at);
        const msg = got.msg[String(step)];
        messageLatencies.push(msg === undefined ? Infinity : msg - at);
      }
      figures.push({
        latencies,
        messageLatencies,
        longTasks: got.long,
        requestsPerS: o.requests / armedS,
        wire: got.wire,
      });
    }
    await browser.close();
    const setup = `${KEYS.length} keys, ${fmtInt(history)} steps of history, ${fleet.length} background workers`;
    printRound({ pages: n, seconds, figures, ...r }, index++, setup, log);
  }
  bgStop = true;
  await bgLoop;
  log(
    `background fleet: frames acked / sent ${fmtInt(tally.framesAcked)} / ${fmtInt(tally.framesSent)}`,
  );
}

/** The `live-browser` scenario (see the module comment). */
export const scenario: Scenario = {
  name: "live-browser",
  description:
    "push -> value visible in real Chromium pages on a 50-key run written by 8 ranks at 10 Hz, with a background fleet; long tasks and requests per page",
  run: liveBrowser,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
