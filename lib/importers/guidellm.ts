import { stringifyJson } from "../protocol/json";
import type { BenchmarkDocumentModule } from "./benchmark-document";
import type { MappedRecord, ParsedFile } from "./benchmark-run";
import { compactFacts, type PointFields, type RowMapping } from "./source-common";
import {
  baseName,
  countLines,
  isPlainObject,
  sha256Hex,
  topLevelArrayElementLines,
  type ImportProblem,
  type JsonObject,
} from "./source-text";
import {
  measuredMsOrNull,
  nonNegIntOrNull,
  numberOrNull,
  setOwn,
  stringOrNull,
} from "./source-values";

/**
 * GuideLLM `benchmarks.json` (`GenerativeBenchmarksReport`) → benchmark points, one per benchmark
 * of the sweep.
 *
 * Writer: vllm-project/guidellm pydantic models (`GenerativeBenchmarksReport`, `GenerativeBenchmark`,
 * `GenerativeMetrics`, `StatusDistributionSummary`; read at commit 03820eba, fixture
 * `guidellm/SCHEMA.md`). Top level: `{"benchmarks": [...]}` (0.2–0.3) or `{"metadata": {version,
 * guidellm_version…}, "args": {...}, "benchmarks": [...]}` (0.4+). Each benchmark has the
 * scheduling strategy (`config.strategy`, 0.2–0.3 `args.strategy`: `{type_: synchronous |
 * concurrent (streams) | throughput (max_concurrency) | constant | poisson (rate)}`), `start_time` /
 * `end_time` (epoch s), `duration` (s), `request_totals` (`{successful, errored, incomplete,
 * total}`, under `metrics` in newer versions) and `metrics`: distributions per request status,
 * `{successful, errored, incomplete, total}` of `{mean, median, mode, variance, std_dev, min, max,
 * count, total_sum, percentiles: {p001…p50…p99, p999}}`. Units: `request_latency` SECONDS,
 * `*_ms` milliseconds, `*_per_second` per second. Many values may be null; an empty status
 * (count 0) has all-zero statistics. Only JSON reports are read (not YAML or CSV).
 *
 * Mapping (statistics of the `successful` requests, what SGLang and vLLM report too):
 * - `concurrency`: synchronous → 1, concurrent → `streams`, throughput → `max_concurrency` (else
 *   null); `requestRate`: constant/poisson → `rate`, throughput → unbounded.
 * - `measuredConcurrency`: `request_concurrency` mean over all requests (`total`, else successful).
 * - `completed` / `failed`: `request_totals.successful` / `.errored` (incomplete requests, cut off at
 *   the end of a timed benchmark, are neither; they stay in `raw`).
 * - `durationS`: `duration`, else `end_time − start_time`.
 * - `requestThroughput` / `outputTokPerS` / `totalTokPerS`: mean of `requests_per_second` /
 *   `output_tokens_per_second` / `tokens_per_second`.
 * - `inputLen` / `outputLen`: `prompt_tokens=N` / `output_tokens=N` of the synthetic data spec when
 *   the report carries it, else the rounded mean `prompt_token_count` / `output_token_count`.
 * - TTFT: `time_to_first_token_ms`; E2E: `request_latency` × 1000; mean, median, percentiles.p99.
 * - GuideLLM's `inter_token_latency_ms` is (last token − first token) / (output tokens − 1) per
 *   request: what SGLang and vLLM call TPOT, so it maps to `tpotMs*`. GuideLLM's own
 *   `time_per_output_token_ms` includes the TTFT and stays in `raw`; `itlMs*` (per-chunk gaps) stay
 *   null. A distribution with count 0 or a TTFT/TPOT of 0 is "not measured": null.
 * - `completed` 0 nulls every throughput and latency (not 0 tok/s), as for the other formats.
 * - `raw`: the benchmark without its sampled `requests`, each metric reduced to the mean, median,
 *   std_dev, min, max, count and p50/p90/p95/p99 of its `successful` and `total` statuses.
 * - `startedAtMs` / `endedAtMs`: `start_time` / `end_time` (real epoch times).
 * - Run config: `benchmarkTool` "guidellm", `toolVersion`, `model`, `backend`, `profile` (sweep,
 *   concurrent…), `strategy` types.
 * Point keys hash the benchmark's JSON and its index; `ord` is the line where it starts.
 */

/** Metric names a benchmark's `metrics` must show (two of them) to be recognised. */
const MARKER_METRICS = [
  "requests_per_second",
  "request_latency",
  "time_to_first_token_ms",
  "output_tokens_per_second",
  "inter_token_latency_ms",
  "request_concurrency",
] as const;

/** Percentiles kept in `raw`. */
const RAW_PERCENTILES = ["p50", "p90", "p95", "p99"] as const;
/** Summary statistics kept in `raw`. */
const RAW_STATS = ["mean", "median", "std_dev", "min", "max", "count"] as const;

/** True for a parsed GuideLLM report: a `benchmarks` array whose first entry has `metrics` with two known distributions. */
function recognises(doc: unknown): boolean {
  if (!isPlainObject(doc) || !Array.isArray(doc.benchmarks)) return false;
  const first = doc.benchmarks[0];
  if (!isPlainObject(first) || !isPlainObject(first.metrics)) return false;
  const metrics = first.metrics;
  return MARKER_METRICS.filter((k) => isPlainObject(metrics[k])).length >= 2;
}

/** Reads `value[path[0]][path[1]]…`, undefined when a step is missing or not an object. */
function dig(value: unknown, ...path: string[]): unknown {
  let cur: unknown = value;
  for (const p of path) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

/** The distribution of `metric` for `status`, or null when absent or empty (count 0). */
function distribution(
  metrics: JsonObject,
  metric: string,
  status: "successful" | "total",
): JsonObject | null {
  const d = dig(metrics, metric, status);
  if (!isPlainObject(d)) return null;
  if (typeof d.count === "number" && d.count === 0) return null;
  return d;
}

/** Mean, median and p99 of a distribution (each null when absent). */
function stats(d: JsonObject | null): {
  mean: number | null;
  median: number | null;
  p99: number | null;
} {
  if (!d) return { mean: null, median: null, p99: null };
  return {
    mean: numberOrNull(d.mean),
    median: numberOrNull(d.median),
    p99: numberOrNull(dig(d, "percentiles", "p99")),
  };
}

function scaled(v: number | null, factor: number): number | null {
  return v === null ? null : v * factor;
}

/** `prompt_tokens=N` / `output_tokens=N` of a synthetic data spec (string or object), or nulls. */
function configuredLengths(...sources: unknown[]): {
  inputLen: number | null;
  outputLen: number | null;
} {
  let inputLen: number | null = null;
  let outputLen: number | null = null;
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (isPlainObject(v)) {
      inputLen ??= nonNegIntOrNull(v.prompt_tokens);
      outputLen ??= nonNegIntOrNull(v.output_tokens);
    } else if (typeof v === "string") {
      const p = /(?:^|[\s,{"'])prompt_tokens["']?\s*[=:]\s*(\d+)/.exec(v);
      const o = /(?:^|[\s,{"'])output_tokens["']?\s*[=:]\s*(\d+)/.exec(v);
      if (p) inputLen ??= nonNegIntOrNull(Number(p[1]));
      if (o) outputLen ??= nonNegIntOrNull(Number(o[1]));
    }
  };
  sources.forEach(visit);
  return { inputLen, outputLen };
}

/** The benchmark for `raw`: no sampled requests, each metric reduced to a few statistics. */
function compactBenchmark(b: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(b)) {
    if (k === "requests") continue;
    if (k === "metrics" && isPlainObject(v)) {
      const metrics: JsonObject = {};
      for (const [name, m] of Object.entries(v)) {
        if (!isPlainObject(m)) {
          setOwn(metrics, name, m);
          continue;
        }
        if (!isPlainObject(m.successful) && !isPlainObject(m.total)) {
          // request_totals and the like are small; modality summaries (text, image…) are not kept
          if (Object.values(m).every((x) => typeof x === "number" || x === null))
            setOwn(metrics, name, m);
          continue;
        }
        const entry: JsonObject = {};
        for (const status of ["successful", "total"] as const) {
          const d = m[status];
          if (!isPlainObject(d)) continue;
          const s: JsonObject = {};
          for (const stat of RAW_STATS) if (d[stat] !== undefined) s[stat] = d[stat];
          for (const p of RAW_PERCENTILES) {
            const pv = dig(d, "percentiles", p);
            if (pv !== undefined) s[p] = pv;
          }
          entry[status] = s;
        }
        setOwn(metrics, name, entry);
      }
      out.metrics = metrics;
      continue;
    }
    setOwn(out, k, v);
  }
  return out;
}

/** Maps one benchmark of a report (see the module comment). */
function mapBenchmark(report: JsonObject, b: JsonObject): RowMapping {
  const metrics = b.metrics as JsonObject;
  const strategy = dig(b, "config", "strategy") ?? dig(b, "args", "strategy");
  const type = stringOrNull(dig(strategy, "type_"));
  const streams = nonNegIntOrNull(dig(strategy, "streams"));
  const maxConcurrency = nonNegIntOrNull(dig(strategy, "max_concurrency"));
  const rate = numberOrNull(dig(strategy, "rate"));
  let concurrency: number | null = null;
  let requestRate: number | null = null;
  let unbounded = false;
  if (type === "synchronous") concurrency = 1;
  else if (type === "concurrent") concurrency = streams;
  else if (type === "throughput") {
    concurrency = maxConcurrency;
    unbounded = true;
  } else if (rate !== null && Number.isFinite(rate) && rate >= 0) {
    requestRate = rate;
    concurrency = maxConcurrency;
  }

  const totals = isPlainObject(metrics.request_totals)
    ? metrics.request_totals
    : isPlainObject(b.request_totals)
      ? b.request_totals
      : {};
  const completed = nonNegIntOrNull(totals.successful);
  const allFailed = completed === 0;
  const ok = <T>(v: T): T | null => (allFailed ? null : v);

  const startS = numberOrNull(b.start_time);
  const endS = numberOrNull(b.end_time);
  const durationS =
    numberOrNull(b.duration) ?? (startS !== null && endS !== null ? endS - startS : null);

  const configured = configuredLengths(
    dig(report, "args", "data"),
    dig(b, "request_loader", "data"),
    dig(b, "config", "requests", "data"),
    dig(b, "args", "data"),
  );
  const meanTokens = (metric: string): number | null => {
    const m = stats(distribution(metrics, metric, "successful")).mean;
    return m === null || !Number.isFinite(m) ? null : nonNegIntOrNull(Math.round(m));
  };

  const ttft = stats(distribution(metrics, "time_to_first_token_ms", "successful"));
  const tpot = stats(distribution(metrics, "inter_token_latency_ms", "successful"));
  const e2e = stats(distribution(metrics, "request_latency", "successful"));
  const concurrencyMean = stats(
    distribution(metrics, "request_concurrency", "total") ??
      distribution(metrics, "request_concurrency", "successful"),
  ).mean;
  const inputLen = configured.inputLen ?? meanTokens("prompt_token_count");
  const outputLen = configured.outputLen ?? meanTokens("output_token_count");

  const point: PointFields = {
    scenario: "throughput",
    dataset: null,
    concurrency: concurrency !== null && concurrency > 0 ? concurrency : null,
    measuredConcurrency: ok(concurrencyMean),
    requestRate,
    ...(unbounded ? { requestRateUnbounded: true } : {}),
    inputLen,
    outputLen,
    completed,
    failed: nonNegIntOrNull(totals.errored),
    durationS,
    requestThroughput: ok(stats(distribution(metrics, "requests_per_second", "successful")).mean),
    outputTokPerS: ok(stats(distribution(metrics, "output_tokens_per_second", "successful")).mean),
    totalTokPerS: ok(stats(distribution(metrics, "tokens_per_second", "successful")).mean),
    ttftMsMean: ok(measuredMsOrNull(ttft.mean)),
    ttftMsMedian: ok(measuredMsOrNull(ttft.median)),
    ttftMsP99: ok(measuredMsOrNull(ttft.p99)),
    tpotMsMean: ok(measuredMsOrNull(tpot.mean)),
    tpotMsMedian: ok(measuredMsOrNull(tpot.median)),
    tpotMsP99: ok(measuredMsOrNull(tpot.p99)),
    itlMsMean: null,
    itlMsMedian: null,
    itlMsP99: null,
    e2eMsMean: ok(scaled(e2e.mean, 1000)),
    e2eMsMedian: ok(scaled(e2e.median, 1000)),
    e2eMsP99: ok(scaled(e2e.p99, 1000)),
    acceptLength: null,
  };

  const model =
    stringOrNull(dig(b, "worker", "backend_model")) ??
    stringOrNull(dig(b, "config", "backend", "model")) ??
    stringOrNull(dig(report, "args", "model"));
  const backend =
    stringOrNull(dig(b, "worker", "backend_type")) ??
    stringOrNull(dig(b, "config", "backend", "type")) ??
    stringOrNull(dig(report, "args", "backend")) ??
    stringOrNull(dig(report, "args", "backend_type"));
  const profile =
    stringOrNull(dig(b, "config", "profile", "type_")) ??
    stringOrNull(dig(b, "args", "profile", "type_"));
  const facts = compactFacts({
    benchmarkTool: "guidellm",
    toolVersion: stringOrNull(dig(report, "metadata", "guidellm_version")),
    model,
    backend,
    profile,
    strategy: type,
    inputLen,
    outputLen,
  });

  const mapping: RowMapping = { point, raw: compactBenchmark(b), facts };
  if (startS !== null && Number.isFinite(startS) && startS > 0)
    mapping.startedAtMs = Math.round(startS * 1000);
  if (endS !== null && Number.isFinite(endS) && endS > 0)
    mapping.endedAtMs = Math.round(endS * 1000);
  return mapping;
}

/** Parses one report: a point per generative benchmark; other entries are problems at their line. */
function parse(
  path: string,
  text: string,
  doc: JsonObject,
): { parsed: ParsedFile; problems: ImportProblem[] } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const benchmarks = doc.benchmarks as unknown[];
  const lines = topLevelArrayElementLines(body, "benchmarks");
  const lineOf = (i: number) => (lines.length === benchmarks.length ? (lines[i] as number) : 1);
  const problems: ImportProblem[] = [];
  const records: MappedRecord[] = [];
  for (const [i, b] of benchmarks.entries()) {
    const line = lineOf(i);
    if (!isPlainObject(b) || !isPlainObject(b.metrics)) {
      problems.push({
        file: path,
        line,
        message: `benchmarks[${i}] has no 'metrics' object; skipped`,
      });
      continue;
    }
    if (typeof b.type_ === "string" && b.type_ !== "generative_benchmark") {
      problems.push({
        file: path,
        line,
        message: `benchmarks[${i}] is a ${JSON.stringify(b.type_)}, not a generative benchmark; skipped`,
      });
      continue;
    }
    // The index keeps two identical benchmarks on one line (a report without indentation) apart.
    records.push({
      line,
      text: `benchmarks[${i}] ${stringifyJson(b)}`,
      mapping: mapBenchmark(doc, b),
    });
  }
  return {
    parsed: {
      path,
      contentHash: sha256Hex(text),
      format: "guidellm",
      lineCount: countLines(text),
      records,
    },
    problems,
  };
}

/** The GuideLLM benchmarks.json module (format id `"guidellm"`); one report file is one run. */
export const guidellm: BenchmarkDocumentModule = {
  format: "guidellm",
  tool: "GuideLLM",
  recognises,
  parse,
  oneRunPerImport: false,
  defaultRunName: (paths) => baseName(paths[0] ?? "benchmarks.json"),
};
