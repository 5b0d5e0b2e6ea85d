import {
  compactFacts,
  engineFromBackend,
  trimRawRow,
  type BenchmarkFormatModule,
  type PointFields,
  type RowMapping,
} from "./source-common";
import { type JsonObject } from "./source-text";
import {
  coerceNumericString,
  countFailed,
  datasetOrNull,
  meanLength,
  measuredMsOrNull,
  nonNegIntOrNull,
  numberOrNull,
  parseRequestRate,
  parseZonelessDate,
  setOwn,
  stringOrNull,
} from "./source-values";
import { sweepParameters } from "./vllm-sweep-summary";

/**
 * vLLM `vllm bench serve --save-result` (and legacy `benchmarks/benchmark_serving.py`) results.
 *
 * Source: vllm-project/vllm `vllm/benchmarks/serve.py` (read at commit def9ce85…) and the legacy
 * script (same keys, older; nerdalert/vllm-bench-automation 1a4f2e4c, v0.9-era, May 2025).
 * `--save-result` writes ONE object with `json.dump` and no newline; `--append-result` writes "\n"
 * before each later object, so the file becomes JSON Lines. Quirks handled here:
 * - `request_rate` is a float or the STRING "inf";
 * - `--metadata KEY=VALUE` pairs are merged at the top level as STRINGS ("tp": "1"), before the
 *   built-in keys (a built-in key of the same name overwrites them);
 * - legacy files spell `"request_goodput:"` (trailing colon);
 * - percentile keys are dynamic: `mean|median|std|p<P>_<metric>_ms` for metric in
 *   ttft/tpot/itl/e2el (P from `--metric-percentiles`, "p99.9" possible); only p99 is mapped;
 * - `date` ("YYYYmmdd-HHMMSS", local time, no zone) is taken when the result is saved, i.e. at the
 *   END of that benchmark run;
 * - per-request arrays (`--save-detailed`, in SECONDS) and `latencies`/`queue_times` are dropped;
 * - `vllm bench sweep serve` writes these objects into a JSON array (`summary.json`) with
 *   `run_number` and the swept parameters appended (vllm-sweep-summary.ts): those parameters are
 *   the run-config fact `sweep` (`{max_num_seqs: [32, 64, 128]}` when they vary), each point's
 *   own values stay in its `raw`.
 * Units: latencies ms, throughputs tok/s (`request_throughput` req/s), `duration` s,
 * `spec_decode_acceptance_rate` percent, `spec_decode_acceptance_length` tokens per draft step.
 */

/** Keys only vLLM's writer uses; their count is the format score. */
const VLLM_MARKERS = [
  "date",
  "endpoint_type",
  "model_id",
  "tokenizer_id",
  "num_prompts",
  "burstiness",
  "total_token_throughput",
  "request_goodput",
  "request_goodput:",
  "mean_e2el_ms",
  "median_e2el_ms",
  "spec_decode_acceptance_length",
] as const;

/** String-valued keys the writer itself produces; every other string-valued top-level key is `--metadata`. */
const WRITER_STRING_KEYS: ReadonlySet<string> = new Set([
  "date",
  "endpoint_type",
  "backend",
  "label",
  "model_id",
  "tokenizer_id",
  "request_rate",
  "ramp_up_strategy",
  "dataset_name",
  "server_args",
]);

/** Metadata keys read as the configured input / output length, in order of preference. */
const INPUT_LEN_KEYS = [
  "input_len",
  "input-len",
  "random_input_len",
  "random-input-len",
  "isl",
] as const;
const OUTPUT_LEN_KEYS = [
  "output_len",
  "output-len",
  "random_output_len",
  "random-output-len",
  "osl",
] as const;

/**
 * The `--metadata KEY=VALUE` pairs of a vLLM result row: every top-level string value whose key
 * the writer does not produce itself, with numeric strings coerced to numbers ("1" → 1,
 * "0.88" → 0.88; other strings unchanged). Key order follows the row. In a `vllm bench sweep`
 * element the keys from `run_number` on are swept parameters, not metadata.
 */
export function vllmMetadata(row: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === "run_number") break;
    if (typeof value === "string" && !WRITER_STRING_KEYS.has(key))
      setOwn(out, key, coerceNumericString(value));
  }
  return out;
}

function firstLength(meta: JsonObject, keys: readonly string[]): number | null {
  for (const key of keys) {
    const n = nonNegIntOrNull(meta[key]);
    if (n !== null) return n;
  }
  return null;
}

/** Score of `row` as a vLLM bench serve result: how many vLLM-only keys it has. */
function score(row: JsonObject): number {
  let n = 0;
  for (const key of VLLM_MARKERS) if (key in row) n++;
  return n;
}

/**
 * Maps one vLLM bench serve result row to a protocol point, a trimmed raw row, run facts and
 * timestamps (`endedAtMs` = `date` read as UTC, `startedAtMs` = that minus `duration`).
 * Lengths come from metadata (`input_len`, `random-input-len`, … see INPUT_LEN_KEYS) when present,
 * else the mean per completed request from the token totals. `completed` 0 keeps the point but
 * nulls every throughput, latency and τ value (vLLM writes 0.0 for them).
 */
function mapRow(row: JsonObject): RowMapping {
  const completed = nonNegIntOrNull(row.completed);
  const allFailed = completed === 0;
  const meta = vllmMetadata(row);
  const inputLen =
    firstLength(meta, INPUT_LEN_KEYS) ?? meanLength(row.total_input_tokens, completed);
  const outputLen =
    firstLength(meta, OUTPUT_LEN_KEYS) ?? meanLength(row.total_output_tokens, completed);
  const dataset = datasetOrNull(row.dataset_name) ?? datasetOrNull(meta.dataset);
  const durationS = numberOrNull(row.duration);

  const ok = <T>(v: T): T | null => (allFailed ? null : v);
  const point: PointFields = {
    scenario: "throughput",
    dataset,
    concurrency: nonNegIntOrNull(row.max_concurrency),
    measuredConcurrency: null,
    ...parseRequestRate(row.request_rate),
    inputLen,
    outputLen,
    completed,
    failed: nonNegIntOrNull(row.failed) ?? countFailed(row.errors),
    durationS,
    requestThroughput: ok(numberOrNull(row.request_throughput)),
    outputTokPerS: ok(numberOrNull(row.output_throughput)),
    totalTokPerS: ok(numberOrNull(row.total_token_throughput)),
    ttftMsMean: ok(measuredMsOrNull(row.mean_ttft_ms)),
    ttftMsMedian: ok(measuredMsOrNull(row.median_ttft_ms)),
    ttftMsP99: ok(measuredMsOrNull(row.p99_ttft_ms)),
    tpotMsMean: ok(measuredMsOrNull(row.mean_tpot_ms)),
    tpotMsMedian: ok(measuredMsOrNull(row.median_tpot_ms)),
    tpotMsP99: ok(measuredMsOrNull(row.p99_tpot_ms)),
    itlMsMean: ok(measuredMsOrNull(row.mean_itl_ms)),
    itlMsMedian: ok(measuredMsOrNull(row.median_itl_ms)),
    itlMsP99: ok(measuredMsOrNull(row.p99_itl_ms)),
    e2eMsMean: ok(numberOrNull(row.mean_e2el_ms)),
    e2eMsMedian: ok(numberOrNull(row.median_e2el_ms)),
    e2eMsP99: ok(numberOrNull(row.p99_e2el_ms)),
    acceptLength: ok(numberOrNull(row.spec_decode_acceptance_length)),
  };

  const backend = stringOrNull(row.backend) ?? stringOrNull(row.endpoint_type);
  const sweep = sweepParameters(row);
  const facts = compactFacts({
    benchmarkTool: Object.hasOwn(row, "run_number") ? "vllm bench sweep serve" : "vllm bench serve",
    backend,
    engine: engineFromBackend(backend),
    label: stringOrNull(row.label),
    model: stringOrNull(row.model_id),
    tokenizer: stringOrNull(row.tokenizer_id),
    dataset,
    inputLen,
    outputLen,
    burstiness: numberOrNull(row.burstiness),
    rampUpStrategy: stringOrNull(row.ramp_up_strategy),
    metadata: Object.keys(meta).length > 0 ? meta : null,
    // Merged over the points, a parameter that differs becomes the list of its values, which
    // splits the sweep into one series per value (lib/metrics/benchmark-sweep.ts).
    sweep,
  });

  const mapping: RowMapping = { point, raw: trimRawRow(row), facts };
  const endedAtMs = parseZonelessDate(row.date);
  if (endedAtMs !== null) {
    mapping.endedAtMs = endedAtMs;
    const d =
      durationS !== null && Number.isFinite(durationS) && durationS >= 0
        ? Math.round(durationS * 1000)
        : 0;
    mapping.startedAtMs = Math.max(0, endedAtMs - d);
  }
  return mapping;
}

/**
 * The vLLM `bench serve` JSON / JSONL format module (format id `"vllm-bench-serve"`): key-based
 * detection (`score`) and row mapping (`mapRow`, never throws). See the module comment for the
 * writer quirks covered.
 */
export const vllmBenchServe: BenchmarkFormatModule = {
  format: "vllm-bench-serve",
  tool: "vLLM bench serve",
  score,
  mapRow,
};
