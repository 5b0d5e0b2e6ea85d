import type { RunState } from "@/lib/view-models";

/**
 * Read models of serving telemetry (runs of kind `serving`, scraped from SGLang / vLLM `/metrics`
 * by `pitwall scrape`): the host page's "Serving" panel and the server side of a benchmark run.
 * Keys as in docs/protocol.md (`serving/kv_cache_usage`…); times are epoch ms.
 */

/** One series of a serving run within the window, bucketed (means; `serving/up` keeps the minimum). */
export interface ServingSeriesView {
  key: string;
  points: Array<{ tMs: number; value: number }>;
}

/** One scraped endpoint. */
export interface ServingRunView {
  runId: number;
  key: string;
  name: string;
  state: RunState;
  /** Host the engine runs on (the run's host). */
  host: string;
  engine: string | null;
  model: string | null;
  url: string | null;
  /** Seconds between scrapes (from the scraper's config); drives where lines break. */
  intervalS: number;
  /** Latest `serving/up`: false while the engine does not answer; null before the first scrape. */
  up: boolean | null;
  /** When the current outage began (first failed scrape after the last good one); null when up. */
  downSinceMs: number | null;
  /** Time of the latest good scrape; null when none. */
  lastSampleMs: number | null;
  /** Latest value of each key from the latest good scrape. */
  latest: Record<string, number>;
  series: ServingSeriesView[];
}

/** A level of the client's sweep placed on the time axis (from the point's arrival and duration). */
export interface SweepLevelMark {
  /** When the level started (arrival − durationS), epoch ms. */
  startMs: number;
  endMs: number;
  /** `c=16`, `4 req/s`, `max rate`. */
  label: string;
}

/** Serving telemetry over a window. */
export interface ServingWindowView {
  fromMs: number;
  toMs: number;
  runs: ServingRunView[];
}

/** The server telemetry of a benchmark run: the host's serving runs during the run, with the sweep's levels. */
export interface RunServingView extends ServingWindowView {
  levels: SweepLevelMark[];
  /** Client-side acceptance length τ (mean of the points reporting one); null when none. */
  clientAcceptLength: number | null;
}
