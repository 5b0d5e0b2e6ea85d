import { detectEngine, type EngineMetricNames } from "./engines";
import type { ExpositionSample } from "./exposition";
import { histogramQuantile } from "./quantile";
import {
  counterIncrease,
  gaugeMean,
  gaugeSum,
  hasMetric,
  histogramIncrease,
  type ScrapeSnapshot,
} from "./series";

/**
 * Serving metric keys Pitwall stores for a scraped engine (run kind `serving`, step = unix ms),
 * documented in docs/protocol.md. Latencies in ms, rates in tok/s, usage as a 0..1 fraction.
 */
export const SERVING_KEYS = {
  up: "serving/up",
  runningRequests: "serving/running_requests",
  queuedRequests: "serving/queued_requests",
  kvCacheUsage: "serving/kv_cache_usage",
  genTokPerS: "serving/gen_tok_per_s",
  promptTokPerS: "serving/prompt_tok_per_s",
  generationTokPerS: "serving/generation_tok_per_s",
  ttftMsP50: "serving/ttft_ms_p50",
  ttftMsP99: "serving/ttft_ms_p99",
  itlMsP50: "serving/itl_ms_p50",
  itlMsP99: "serving/itl_ms_p99",
  e2eMsP50: "serving/e2e_ms_p50",
  e2eMsP99: "serving/e2e_ms_p99",
  acceptLength: "serving/accept_length",
} as const;

/** Prefix of the per-position acceptance keys: `serving/accept_rate_pos/0`, `…/1`, … (0..1). */
export const ACCEPT_RATE_POS_PREFIX = "serving/accept_rate_pos/";

/** What one scrape yields: the engine recognised, its model name, and the derived values by key. */
export interface ServingReading {
  engine: EngineMetricNames["engine"] | null;
  /** `model_name` label of the first series carrying one. */
  model: string | null;
  values: Record<string, number>;
}

/**
 * Derives the serving values of scrape `cur`, with `prev` (the previous scrape of the same
 * endpoint, or null for the first) for rates and window quantiles. Gauges are summed over ranks
 * (requests, tok/s) or averaged (KV usage, SGLang accept length); rates are counter increases per
 * second of the scrape interval; p50/p99 come from the histogram buckets added in the window, so
 * a window without finished requests has no latency values. Keys absent from the engine's output
 * are left out, never zero-filled.
 */
export function deriveServingReading(
  prev: ScrapeSnapshot | null,
  cur: ScrapeSnapshot,
): ServingReading {
  const names = cur.samples.map((s) => s.name);
  const engine = detectEngine(names);
  const model =
    cur.samples.find((s) => s.labels.model_name !== undefined)?.labels.model_name ?? null;
  const values: Record<string, number> = { [SERVING_KEYS.up]: 1 };
  if (!engine) return { engine: null, model, values };
  const s = cur.samples;
  const put = (key: string, v: number | null) => {
    if (v !== null && !Number.isNaN(v)) values[key] = v;
  };
  put(SERVING_KEYS.runningRequests, gaugeSum(s, engine.running));
  put(SERVING_KEYS.queuedRequests, gaugeSum(s, engine.queued));
  put(SERVING_KEYS.kvCacheUsage, gaugeMean(s, firstPresent(s, engine.kvUsage)));
  if (engine.genThroughput) put(SERVING_KEYS.genTokPerS, gaugeSum(s, engine.genThroughput));
  if (engine.acceptLengthGauge) {
    // SGLang reports 0 (or nothing) when speculative decoding is off: not an accept length.
    const tau = gaugeMean(s, engine.acceptLengthGauge);
    if (tau !== null && tau > 0) put(SERVING_KEYS.acceptLength, tau);
  }
  if (!prev) return { engine: engine.engine, model, values };

  const dtS = (cur.tsMs - prev.tsMs) / 1000;
  const p = prev.samples;
  if (dtS > 0) {
    put(SERVING_KEYS.promptTokPerS, perSecond(counterIncrease(p, s, engine.promptTokens), dtS));
    put(
      SERVING_KEYS.generationTokPerS,
      perSecond(counterIncrease(p, s, engine.generationTokens), dtS),
    );
  }
  const quantiles = (family: string, p50Key: string, p99Key: string) => {
    const inc = histogramIncrease(p, s, family);
    put(p50Key, histogramQuantile(0.5, inc) * 1000);
    put(p99Key, histogramQuantile(0.99, inc) * 1000);
  };
  quantiles(engine.ttft, SERVING_KEYS.ttftMsP50, SERVING_KEYS.ttftMsP99);
  quantiles(
    firstPresent(
      s,
      engine.itl.map((n) => `${n}_bucket`),
    ).replace(/_bucket$/, ""),
    SERVING_KEYS.itlMsP50,
    SERVING_KEYS.itlMsP99,
  );
  quantiles(engine.e2e, SERVING_KEYS.e2eMsP50, SERVING_KEYS.e2eMsP99);

  if (engine.specDrafts && engine.specAccepted) {
    const drafts = counterIncrease(p, s, engine.specDrafts);
    if (drafts !== null && drafts > 0) {
      put(
        SERVING_KEYS.acceptLength,
        1 + (counterIncrease(p, s, engine.specAccepted) ?? NaN) / drafts,
      );
      if (engine.specAcceptedPerPos) {
        const positions = new Set(
          s.filter((x) => x.name === engine.specAcceptedPerPos).map((x) => x.labels.position ?? ""),
        );
        for (const pos of positions) {
          if (!/^\d+$/.test(pos)) continue;
          const acc = counterIncrease(
            p,
            s,
            engine.specAcceptedPerPos,
            (x) => x.labels.position === pos,
          );
          put(`${ACCEPT_RATE_POS_PREFIX}${pos}`, acc === null ? null : acc / drafts);
        }
      }
    }
  }
  return { engine: engine.engine, model, values };
}

function perSecond(increase: number | null, dtS: number): number | null {
  return increase === null ? null : increase / dtS;
}

function firstPresent(samples: readonly ExpositionSample[], names: string[]): string {
  return names.find((n) => hasMetric(samples, n)) ?? names[0]!;
}
