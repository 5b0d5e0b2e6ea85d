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
import os from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { chromium, type Page } from "@playwright/test";
import { PrismaPg } from "@prisma/adapter-pg";
import WebSocket from "ws";

import { PrismaClient } from "@/generated/prisma/client";
import { createToken } from "@/lib/server/repositories/tokens";
import { createUser } from "@/lib/server/repositories/users";
import { chromiumLaunchOptions } from "@/test/support/chromium";
import { signIn } from "@/test/support/people";

import { FleetTally, FleetWorker } from "./fleet/traffic";
import { pushRun } from "./push-run";
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

const PASSWORD = "live-browser-bench-password";
const KEYS = Array.from({ length: 50 }, (_, i) =>
  i === 0
    ? "loss"
    : i === 1
      ? "lr"
      : i === 2
        ? "grad_norm"
        : `train/k${String(i).padStart(2, "0")}`,
);
const RANKS = 8;
const RANK_HZ = 10;

/** Page script (a string: tsx wraps named functions in a helper the page lacks): step -> epoch ms seen, long tasks. */
const WATCH = `(() => {
  const w = window;
  w.__seen = {};
  w.__long = [];
  let last = -1;
  const note = () => {
    const f = document.querySelector('figure[data-key="loss"]');
    const s = f ? Number(f.getAttribute("data-last-step")) : NaN;
    if (Number.isFinite(s) && s > last) {
      const t = performance.timeOrigin + performance.now();
      for (let k = last + 1; k <= s; k++) if (w.__armed) w.__seen[k] = t;
      last = s;
    }
  };
  new MutationObserver(note).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-last-step"] });
  w.__msg = {};
  let lastMsg = -1;
  // The newest step a live message or a series response carries: any "step" member, as a number,
  // a decimal string, or a replaced value ({"r":N}) inside a delta's patch (lib/protocol/live-patch.ts).
  const maxStep = (v, depth) => {
    let hi = -1;
    if (depth > 12 || v === null || typeof v !== "object") return hi;
    if (Array.isArray(v)) { for (const x of v) hi = Math.max(hi, maxStep(x, depth + 1)); return hi; }
    for (const k in v) {
      const x = v[k];
      if (k === "step") {
        const s = x !== null && typeof x === "object" && "r" in x ? x.r : x;
        const n = typeof s === "number" ? s : typeof s === "string" && /^\\d+$/.test(s) ? Number(s) : NaN;
        if (Number.isFinite(n)) hi = Math.max(hi, n);
        else hi = Math.max(hi, maxStep(x, depth + 1));
      } else hi = Math.max(hi, maxStep(x, depth + 1));
    }
    return hi;
  };
  const noteMsg = (hi, t) => {
    if (hi > lastMsg) {
      for (let k = Math.max(lastMsg + 1, hi - 1000); k <= hi; k++) w.__msg[k] = t;
      lastMsg = hi;
    }
  };
  const W = window.WebSocket;
  window.WebSocket = class extends W {
    constructor(...a) {
      super(...a);
      this.addEventListener("message", (e) => {
        if (!w.__armed || typeof e.data !== "string" || !e.data.includes('"step"')) return;
        const t = performance.timeOrigin + performance.now();
        try { noteMsg(maxStep(JSON.parse(e.data), 0), t); } catch {}
      });
    }
  };
  // A page that refetches the series over HTTP instead: the response of the metrics read counts.
  const F = window.fetch;
  window.fetch = async (...a) => {
    const res = await F(...a);
    const url = String(a[0] && a[0].url ? a[0].url : a[0]);
    if (w.__armed && /\\/api\\/runs\\/\\d+\\/metrics/.test(url)) {
      res.clone().json().then((body) => noteMsg(maxStep(body, 0), performance.timeOrigin + performance.now())).catch(() => {});
    }
    return res;
  };
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__long.push(e.duration); }).observe({ type: "longtask", buffered: true });
  } catch {}
})();`;

interface PageFigures {
  /** push (scheduled send) -> `loss` chart holds the step, ms, one per scheduled step (Infinity: never). */
  latencies: number[];
  /** push (scheduled send) -> a live message naming the step reached the page, ms (anchor). */
  messageLatencies: number[];
  longTasks: number[];
  /** HTTP requests of the page per second, from arming to the end of the drain. */
  requestsPerS: number;
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
    for (const o of open) {
      o.armed = true;
      await o.page.evaluate(() => ((window as unknown as { __armed: boolean }).__armed = true));
    }
    const r = await writeRanks(url, env.token, runKey, nextStep, seconds);
    nextStep = r.nextStep;
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
        };
        return { seen: w.__seen, msg: w.__msg, long: w.__long };
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

/** One measured round: N pages watching while the ranks wrote for `seconds`. */
interface Round {
  pages: number;
  seconds: number;
  figures: PageFigures[];
  scheduled: Map<number, number>;
  acked: number;
  ackLatencies: number[];
}

/** "p50 | p99 | max ms (n samples, m never seen)" of latencies in ms (Infinity = never seen). */
function spread(values: number[]): { p99: number; text: string } {
  const lat = Float64Array.from(values).sort();
  const missed = lat.filter((x) => !Number.isFinite(x)).length;
  const finite = lat.subarray(0, lat.length - missed);
  const max = missed ? "never" : fmt(lat[lat.length - 1] ?? NaN, 0);
  return {
    p99: percentile(lat, 0.99),
    text: `p50 ${fmt(percentile(finite, 0.5), 0)} | p99 ${fmt(percentile(lat, 0.99), 0)} | max ${max} ms (${fmtInt(lat.length)} samples, ${fmtInt(missed)} never seen)`,
  };
}

/** Prints one round's table as soon as it ends, with the machine's load at that moment. */
function printRound(round: Round, i: number, setup: string, log: (line: string) => void): void {
  const met = (ok: boolean) => (ok ? "met" : "NOT met");
  const ms = (x: number | undefined) =>
    x === undefined || !Number.isFinite(x) ? "never" : fmt(x, 0);
  const drawn = spread(round.figures.flatMap((f) => f.latencies));
  const message = spread(round.figures.flatMap((f) => f.messageLatencies));
  const ack = spread(round.ackLatencies);
  const longT = Float64Array.from(round.figures.flatMap((f) => f.longTasks)).sort();
  const reqPerS = round.figures.map((f) => f.requestsPerS);
  const rows: Array<[string, string]> = [
    [`push -> loss drawn (target p99 < 250 ms: ${met(drawn.p99 < 250)})`, drawn.text],
    [
      "first (cold) push -> drawn, per page",
      `${round.figures.map((f) => ms(f.latencies[0])).join(", ")} ms`,
    ],
    ["anchor: push -> live message (or series refetch) at the page", message.text],
    ["anchor: push -> ack (rank 0 frame, in Node)", ack.text],
    [
      `long tasks (target p99 < 100 ms: ${met(longT.length === 0 || percentile(longT, 0.99) < 100)})`,
      longT.length
        ? `${fmtInt(longT.length)} tasks, p50 ${fmt(percentile(longT, 0.5), 0)} | p99 ${fmt(percentile(longT, 0.99), 0)} | max ${fmt(longT[longT.length - 1]!, 0)} ms`
        : "none",
    ],
    [
      `HTTP requests per page per second (target < 0.2: ${met(Math.max(...reqPerS) < 0.2)})`,
      `max ${fmt(Math.max(...reqPerS), 2)}, mean ${fmt(reqPerS.reduce((a, b) => a + b, 0) / reqPerS.length, 2)}`,
    ],
    ["rank frames acked", `${fmtInt(round.acked)} of ${fmtInt(round.scheduled.size * RANKS)}`],
  ];
  const load = os
    .loadavg()
    .map((x) => fmt(x, 2))
    .join(" ");
  printTable(
    `live-browser${i > 0 ? " (reference)" : ""}: ${round.pages} pages (viewers), ${RANKS} ranks at ${RANK_HZ} Hz for ${round.seconds} s; ${setup}; ${os.cpus().length} cores, loadavg ${load}`,
    rows,
    log,
  );
}

/**
 * 8 ranks on their own sockets write steps `from`.. at RANK_HZ for `durationS`: each step, rank r
 * sends its share of KEYS (rank 0 has `loss`) at the step's scheduled time. Returns each step's
 * scheduled epoch ms, how many rank frames were acked, and per step the scheduled send -> ack ms
 * of rank 0's frame (Infinity: never acked).
 */
async function writeRanks(
  url: string,
  token: string,
  runKey: string,
  from: number,
  durationS: number,
): Promise<{
  scheduled: Map<number, number>;
  acked: number;
  ackLatencies: number[];
  nextStep: number;
}> {
  const sockets = await Promise.all(
    Array.from({ length: RANKS }, async () => {
      const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws/ingest`, {
        headers: { authorization: `Bearer ${token}` },
        perMessageDeflate: false,
      });
      await new Promise<void>((resolve, reject) =>
        ws.once("open", () => resolve()).once("error", reject),
      );
      ws.on("error", () => undefined);
      return ws;
    }),
  );
  let acked = 0;
  let rejected = 0;
  const scheduled = new Map<number, number>();
  const ackedAt = new Map<number, number>();
  for (const ws of sockets)
    ws.on("message", (d) => {
      const now = Date.now();
      const msg = JSON.parse(String(d)) as { type: string; ids?: string[] };
      if (msg.type === "ack") {
        acked += msg.ids?.length ?? 0;
        for (const id of msg.ids ?? []) {
          const m = /^lb-(\d+)-0$/.exec(id);
          if (m) ackedAt.set(Number(m[1]), now);
        }
      } else if (msg.type === "error") rejected++;
    });
  const steps = durationS * RANK_HZ;
  const t0 = Date.now() + 200;
  for (let i = 0; i < steps; i++) {
    const at = t0 + (i * 1000) / RANK_HZ;
    const wait = at - Date.now();
    if (wait > 0) await sleep(wait);
    const step = from + i;
    scheduled.set(step, at);
    for (let r = 0; r < RANKS; r++) {
      let pts = "";
      for (let k = r; k < KEYS.length; k += RANKS)
        pts += `${pts ? "," : ""}{"key":"${KEYS[k]}","step":${step},"value":${Math.sin(step / 50 + k).toFixed(6)}}`;
      sockets[r]!.send(
        `{"v":1,"id":"lb-${step}-${r}","type":"run.metrics","run":"${runKey}","points":[${pts}]}`,
      );
    }
  }
  await sleep(1000);
  for (const ws of sockets) ws.close();
  if (rejected > 0) console.warn(`[bench] live-browser: ${rejected} rank frame(s) rejected`);
  const ackLatencies = [...scheduled].map(([step, at]) => (ackedAt.get(step) ?? Infinity) - at);
  return { scheduled, acked, ackLatencies, nextStep: from + steps };
}

/** The `live-browser` scenario (see the module comment). */
export const scenario: Scenario = {
  name: "live-browser",
  description:
    "push -> value visible in real Chromium pages on a 50-key run written by 8 ranks at 10 Hz, with a background fleet; long tasks and requests per page",
  run: liveBrowser,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
