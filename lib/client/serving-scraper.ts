import os from "node:os";

import type { MetricPointInput, RunEndFrame } from "@/lib/protocol";
import { deriveDcgmValues } from "@/lib/serving/dcgm";
import { deriveServingReading, SERVING_KEYS } from "@/lib/serving/derive";
import { parseExposition } from "@/lib/serving/exposition";
import type { ScrapeSnapshot } from "@/lib/serving/series";
import { servingStallAfterS } from "@/lib/serving/stall";

import { systemClock, type Clock } from "./clock";
import type { FrameSender } from "./run-reporter";

/**
 * `pitwall scrape` and `pitwall run --scrape`: polls SGLang / vLLM `/metrics` endpoints every
 * `intervalS` and pushes each as a live run of kind `serving` (one per endpoint, step = unix ms,
 * keys in docs/protocol.md). An endpoint that does not answer gets `serving/up` = 0 and no other
 * sample (a gap), plus one warning event per outage; scraping goes on and resumes when it answers.
 */

/** One endpoint to scrape and the run it feeds. */
export interface ScrapeTarget {
  url: string;
  /** The engine's host (`--host`, else the URL's hostname; this machine for loopback URLs). */
  engineHost: string;
  /** Run key: `serving:<engineHost>:<port><path>`, the same for every scrape of that endpoint. */
  runKey: string;
  /** Host to name in run.start; undefined means the token's host (loopback URL, no `--host`). */
  runHost: string | undefined;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"]);

/**
 * Where `url` is served and the run key it gets.
 * @throws Error when `url` is not an http(s) URL.
 */
export function scrapeTarget(
  url: string,
  hostOverride?: string,
  localHostname: string = os.hostname(),
): ScrapeTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`not a URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new Error(`only http(s) endpoints can be scraped: ${url}`);
  const loopback = LOOPBACK.has(parsed.hostname);
  const named = hostOverride ?? (loopback ? undefined : parsed.hostname);
  const engineHost = sanitizeHost(named ?? localHostname);
  const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
  return {
    url,
    engineHost,
    runKey: `serving:${engineHost}:${port}${parsed.pathname}`.slice(0, 200),
    runHost: named === undefined ? undefined : engineHost,
  };
}

/** A host name as the protocol accepts it (letters, digits, '.', '_', '-'). */
function sanitizeHost(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 100);
  return cleaned || "engine";
}

/** Fetches a URL's body as text within `timeoutMs`; throws on a network error, timeout or non-2xx status. */
export type FetchText = (url: string, timeoutMs: number) => Promise<string>;

/** The real fetch (Node's global fetch). */
export const fetchText: FetchText = async (url, timeoutMs) => {
  const res = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: "text/plain" },
  });
  if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`.trim());
  return res.text();
};

/** Options of {@link ServingScraper}. */
export interface ServingScraperOptions {
  sender: FrameSender;
  targets: ScrapeTarget[];
  /** Seconds between scrapes. */
  intervalS: number;
  /** An NVIDIA dcgm-exporter `/metrics` URL whose GPU readings go into every target's run. */
  dcgmUrl?: string;
  /** Extra config stored on each serving run (e.g. the benchmark run it was started with). */
  config?: Record<string, unknown>;
  clock?: Clock;
  fetchText?: FetchText;
  /** Human messages (engine down / back), for the CLI's stderr. */
  onMessage?: (message: string) => void;
}

interface TargetState {
  prev: ScrapeSnapshot | null;
  downSinceMs: number | null;
  announced: string | null;
}

/** Scrapes the targets on a fixed cadence and sends their runs' frames; see the module comment. */
export class ServingScraper {
  private readonly clock: Clock;
  private readonly fetchText: FetchText;
  private readonly state = new Map<string, TargetState>();
  private readonly startedAtMs: number;
  private dcgmDown = false;

  constructor(private readonly opts: ServingScraperOptions) {
    this.clock = opts.clock ?? systemClock;
    this.fetchText = opts.fetchText ?? fetchText;
    this.startedAtMs = this.clock.now();
    for (const t of opts.targets)
      this.state.set(t.runKey, { prev: null, downSinceMs: null, announced: null });
  }

  /** The run keys fed, in target order. */
  get runKeys(): string[] {
    return this.opts.targets.map((t) => t.runKey);
  }

  /** Sends `run.start` for every target (call once, before the first scrape). */
  start(): void {
    for (const t of this.opts.targets) this.sendStart(t, null, null);
  }

  /** Scrapes every target once (concurrently) and sends what it read; never throws for a down engine. */
  async scrapeOnce(): Promise<void> {
    const dcgm = await this.scrapeDcgm();
    await Promise.all(this.opts.targets.map((t) => this.scrapeTarget(t, dcgm)));
  }

  /**
   * Scrapes now and then every `intervalS` (ticks on a fixed grid from the first; a slow scrape
   * skips the ticks it overran) until `signal` aborts; then scrapes a last time so the final
   * window is stored.
   */
  async runUntil(signal: AbortSignal): Promise<void> {
    const periodMs = this.opts.intervalS * 1000;
    const t0 = this.clock.now();
    while (!signal.aborted) {
      await this.scrapeOnce();
      const elapsed = this.clock.now() - t0;
      await this.clock.sleep(periodMs - (elapsed % periodMs), signal);
    }
    await this.scrapeOnce();
  }

  /**
   * Sends `run.end` for every target: scraping stopped. Default `ended` (stopped, outcome unknown):
   * telemetry has no outcome of its own, so it never claims `succeeded`.
   */
  finish(status: RunEndFrame["status"] = "ended"): void {
    for (const t of this.opts.targets)
      this.opts.sender.send({ type: "run.end", run: t.runKey, status, endedAt: this.clock.now() });
  }

  private sendStart(t: ScrapeTarget, engine: string | null, model: string | null): void {
    const port = new URL(t.url).port;
    const label = engine
      ? `${engine === "sglang" ? "SGLang" : "vLLM"}${model ? ` ${model}` : ""}`
      : "serving";
    this.opts.sender.send({
      type: "run.start",
      run: t.runKey,
      name: `${label} @ ${t.engineHost}${port ? `:${port}` : ""}`,
      kind: "serving",
      ...(t.runHost ? { host: t.runHost } : {}),
      startedAt: this.startedAtMs,
      // Six missed scrapes (at least two minutes) before the run shows as stale; the serving panel uses the same rule.
      stallAfterS: servingStallAfterS(this.opts.intervalS),
      config: {
        url: t.url,
        engineHost: t.engineHost,
        scrapedBy: os.hostname(),
        intervalS: this.opts.intervalS,
        ...(engine ? { engine } : {}),
        ...(model ? { model } : {}),
        ...(this.opts.dcgmUrl ? { dcgmUrl: this.opts.dcgmUrl } : {}),
        ...this.opts.config,
      },
    });
  }

  /** The interval, within 5..10 s: a busy engine (or machine) answering in 2 s is not down. */
  private timeoutMs(): number {
    return Math.max(5000, Math.min(10_000, this.opts.intervalS * 1000));
  }

  private async scrapeDcgm(): Promise<Record<string, number>> {
    if (!this.opts.dcgmUrl) return {};
    try {
      const values = deriveDcgmValues(
        parseExposition(await this.fetchText(this.opts.dcgmUrl, this.timeoutMs())).samples,
      );
      if (this.dcgmDown)
        this.opts.onMessage?.(`DCGM exporter at ${this.opts.dcgmUrl} answers again`);
      this.dcgmDown = false;
      return values;
    } catch (err) {
      if (!this.dcgmDown)
        this.opts.onMessage?.(
          `DCGM exporter at ${this.opts.dcgmUrl} not reachable (${(err as Error).message}); GPU readings skipped`,
        );
      this.dcgmDown = true;
      return {};
    }
  }

  private async scrapeTarget(t: ScrapeTarget, dcgm: Record<string, number>): Promise<void> {
    const st = this.state.get(t.runKey)!;
    let text: string;
    try {
      text = await this.fetchText(t.url, this.timeoutMs());
    } catch (err) {
      const at = this.clock.now();
      this.sendValues(t.runKey, at, { [SERVING_KEYS.up]: 0 });
      if (st.downSinceMs === null) {
        st.downSinceMs = at;
        const message = `engine at ${t.url} not reachable (${describeError(err)}); no samples until it answers`;
        this.opts.sender.send({ type: "run.event", run: t.runKey, level: "warn", message, ts: at });
        this.opts.onMessage?.(message);
      }
      // The next window starts after the outage, not across it.
      st.prev = null;
      return;
    }
    const cur: ScrapeSnapshot = { tsMs: this.clock.now(), samples: parseExposition(text).samples };
    const reading = deriveServingReading(st.prev, cur);
    st.prev = cur;
    if (st.downSinceMs !== null) {
      const message = `engine at ${t.url} answers again after ${Math.round((cur.tsMs - st.downSinceMs) / 1000)} s`;
      this.opts.sender.send({
        type: "run.event",
        run: t.runKey,
        level: "info",
        message,
        ts: cur.tsMs,
      });
      this.opts.onMessage?.(message);
      st.downSinceMs = null;
    }
    const identity = `${reading.engine}\u0000${reading.model}`;
    if (reading.engine && st.announced !== identity) {
      // Name the run after the engine and model once they are known.
      this.sendStart(t, reading.engine, reading.model);
      st.announced = identity;
    }
    this.sendValues(t.runKey, cur.tsMs, { ...reading.values, ...dcgm });
  }

  private sendValues(run: string, tsMs: number, values: Record<string, number>): void {
    const points: MetricPointInput[] = Object.entries(values).map(([key, value]) => ({
      key,
      step: tsMs,
      value,
      ts: tsMs,
    }));
    if (points.length) this.opts.sender.send({ type: "run.metrics", run, points });
  }
}

function describeError(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message;
}
