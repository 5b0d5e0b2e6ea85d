import {
  compactFacts,
  engineFromBackend,
  trimRawRow,
  type BenchmarkFormatModule,
  type PointFields,
  type RowMapping,
} from "./source-common";
import { isPlainObject, type JsonObject } from "./source-text";
import {
  countFailed,
  datasetOrNull,
  meanLength,
  measuredMsOrNull,
  nonNegIntOrNull,
  numberOrNull,
  parseRequestRate,
  ratioOrNull,
  stringOrNull,
} from "./source-values";

/**
 * SGLang `python -m sglang.bench_serving --output-file X.jsonl` results.
 *
 * Source: sgl-project/sglang `python/sglang/bench_serving.py` (function `benchmark`, end; e.g.
 * commit 0033168f…) and the refactored `python/sglang/benchmark/metrics.py` `save_results`
 * (commit 6e48df33…). The file is opened in append mode and every run writes
 * `json.dumps(result) + "\n"`, so one file is usually a whole sweep, one line per level.
 * Writers seen (detected by key presence, never by version):
 * - late-2024 (datacrunch-research/h200-benchmarks c091ef53): 18 keys, medians only, no
 *   `request_throughput`/`total_throughput`/p99/std/`concurrency`/`accept_length`;
 * - 2025+: adds std/p99 (and p95/p90) stats, `concurrency`, `accept_length`, `total_throughput`,
 *   `tag`, `server_info` (the whole `/get_server_info` JSON);
 * - refactor variant: metric dataclass dumped as is, so `total_input`, `total_output`,
 *   `total_output_retokenized` replace the `*_tokens` keys, and `--output-details` arrays sit under
 *   a nested `details` object instead of the top level.
 * Units: summary latencies in ms, throughputs tok/s (req/s for `request_throughput`), `duration`
 * in s; per-request detail arrays (dropped here) are in SECONDS.
 */

/** Keys only SGLang's writer uses; their count is the format score. */
const SGLANG_MARKERS = [
  "dataset_name",
  "random_input_len",
  "random_output_len",
  "random_range_ratio",
  "sharegpt_output_len",
  "total_output_tokens_retokenized",
  "total_output_retokenized",
  "mean_e2e_latency_ms",
  "median_e2e_latency_ms",
  "accept_length",
  "server_info",
  "total_input",
] as const;

/** `/get_server_info` keys kept in the summary that replaces the (large) `server_info` blob. */
const SERVER_INFO_KEYS = [
  "version",
  "model_path",
  "served_model_name",
  "tokenizer_path",
  "tp_size",
  "dp_size",
  "ep_size",
  "pp_size",
  "enable_dp_attention",
  "speculative_algorithm",
  "speculative_draft_model_path",
  "speculative_num_steps",
  "speculative_eagle_topk",
  "speculative_num_draft_tokens",
  "mem_fraction_static",
  "context_length",
  "dtype",
  "quantization",
  "kv_cache_dtype",
  "attention_backend",
  "chunked_prefill_size",
  "max_running_requests",
  "cuda_graph_max_bs",
  "disaggregation_mode",
  "disaggregation_transfer_backend",
] as const;

const MAX_SUMMARY_STRING = 500;

/**
 * Summarises SGLang's `/get_server_info` JSON (as embedded in newer `bench_serving` rows) into a
 * small flat object: the scalar values of a fixed list of server args (version, model_path,
 * tp_size, speculative_* …, attention and disaggregation transfer backends, strings clipped to 500
 * chars) plus `avg_spec_accept_length` from `internal_states[0]`.
 *
 * Prefill/decode disaggregation (SGLang's PD load balancer answers
 * `{prefill: [info…], decode: [info…], internal_states: [decode states…]}`): the first decode
 * server is summarised at the top level with `role: "decode"` (its τ, or the balancer's first
 * internal state when the decode info has none), and the first prefill server as `prefill` (same
 * keys, `role: "prefill"`), so both servers' version and backends are kept; `prefillServers` /
 * `decodeServers` count the servers when there is more than one of a role.
 * Returns null when `serverInfo` is not an object.
 */
export function summariseServerInfo(serverInfo: unknown): JsonObject | null {
  if (!isPlainObject(serverInfo)) return null;
  const { decode, prefill } = serverInfo;
  if (!Array.isArray(decode) || !isPlainObject(decode[0])) return summariseOneServer(serverInfo);
  const out = summariseOneServer(decode[0], serverInfo.internal_states);
  out.role = "decode";
  if (Array.isArray(prefill) && isPlainObject(prefill[0]))
    out.prefill = { ...summariseOneServer(prefill[0]), role: "prefill" };
  if (Array.isArray(prefill) && prefill.length > 1) out.prefillServers = prefill.length;
  if (decode.length > 1) out.decodeServers = decode.length;
  return out;
}

/** The summary of one server's info; `fallbackStates` stands in for a missing `internal_states`. */
function summariseOneServer(info: JsonObject, fallbackStates?: unknown): JsonObject {
  const out: JsonObject = {};
  for (const key of SERVER_INFO_KEYS) {
    const v = info[key];
    if (typeof v === "string")
      out[key] = v.length > MAX_SUMMARY_STRING ? v.slice(0, MAX_SUMMARY_STRING) : v;
    else if (typeof v === "number" || typeof v === "boolean") out[key] = v;
  }
  const states = Array.isArray(info.internal_states) ? info.internal_states : fallbackStates;
  if (Array.isArray(states) && isPlainObject(states[0])) {
    const tau = numberOrNull(states[0].avg_spec_accept_length);
    if (tau !== null) out.avg_spec_accept_length = tau;
  }
  return out;
}

/** Score of `row` as an SGLang bench_serving result: how many SGLang-only keys it has. */
function score(row: JsonObject): number {
  let n = 0;
  for (const key of SGLANG_MARKERS) if (key in row) n++;
  return n;
}

/**
 * Maps one SGLang bench_serving result row to a protocol point, a trimmed raw row and run facts.
 * Lengths: random* datasets use the configured `random_input_len`/`random_output_len` (the sweep
 * level; with `random_range_ratio` < 1 actual prompts are shorter, see `raw`); sharegpt uses
 * `sharegpt_output_len` for the output when set; anything not configured is the mean per completed
 * request from the token totals. Missing `request_throughput`/`total_throughput` (late-2024 writer)
 * are derived with the writer's own formulas (completed / duration, (input + output tokens) / duration).
 * `completed` 0 keeps the point but nulls every throughput, latency, concurrency and τ value.
 */
function mapRow(row: JsonObject): RowMapping {
  const completed = nonNegIntOrNull(row.completed);
  const allFailed = completed === 0;
  const details = isPlainObject(row.details) ? row.details : null;
  const failed = countFailed(row.errors ?? details?.errors);
  const durationS = numberOrNull(row.duration);
  const totalInput = numberOrNull(row.total_input_tokens ?? row.total_input);
  const totalOutput = numberOrNull(row.total_output_tokens ?? row.total_output);
  const dataset = datasetOrNull(row.dataset_name);
  const isRandom = dataset !== null && dataset.startsWith("random");

  let inputLen: number | null = null;
  let outputLen: number | null = null;
  if (isRandom) {
    inputLen = nonNegIntOrNull(row.random_input_len);
    outputLen = nonNegIntOrNull(row.random_output_len);
  } else if (dataset === "sharegpt") {
    outputLen = nonNegIntOrNull(row.sharegpt_output_len);
  }
  inputLen ??= meanLength(totalInput, completed);
  outputLen ??= meanLength(totalOutput, completed);

  const finiteDuration = durationS !== null && Number.isFinite(durationS) ? durationS : null;
  const requestThroughput =
    numberOrNull(row.request_throughput) ?? ratioOrNull(completed, finiteDuration);
  const inputThroughput = numberOrNull(row.input_throughput);
  const outputTokPerS = numberOrNull(row.output_throughput);
  const totalTokPerS =
    numberOrNull(row.total_throughput) ??
    (inputThroughput !== null && outputTokPerS !== null ? inputThroughput + outputTokPerS : null) ??
    (totalInput !== null && totalOutput !== null
      ? ratioOrNull(totalInput + totalOutput, finiteDuration)
      : null);

  const ok = <T>(v: T): T | null => (allFailed ? null : v);
  const point: PointFields = {
    scenario: "throughput",
    dataset,
    concurrency: nonNegIntOrNull(row.max_concurrency),
    measuredConcurrency: ok(numberOrNull(row.concurrency)),
    ...parseRequestRate(row.request_rate),
    inputLen,
    outputLen,
    completed,
    failed,
    durationS,
    requestThroughput: ok(requestThroughput),
    outputTokPerS: ok(outputTokPerS),
    totalTokPerS: ok(totalTokPerS),
    ttftMsMean: ok(measuredMsOrNull(row.mean_ttft_ms)),
    ttftMsMedian: ok(measuredMsOrNull(row.median_ttft_ms)),
    ttftMsP99: ok(measuredMsOrNull(row.p99_ttft_ms)),
    tpotMsMean: ok(measuredMsOrNull(row.mean_tpot_ms)),
    tpotMsMedian: ok(measuredMsOrNull(row.median_tpot_ms)),
    tpotMsP99: ok(measuredMsOrNull(row.p99_tpot_ms)),
    itlMsMean: ok(measuredMsOrNull(row.mean_itl_ms)),
    itlMsMedian: ok(measuredMsOrNull(row.median_itl_ms)),
    itlMsP99: ok(measuredMsOrNull(row.p99_itl_ms)),
    e2eMsMean: ok(numberOrNull(row.mean_e2e_latency_ms)),
    e2eMsMedian: ok(numberOrNull(row.median_e2e_latency_ms)),
    e2eMsP99: ok(numberOrNull(row.p99_e2e_latency_ms)),
    acceptLength: ok(numberOrNull(row.accept_length)),
  };

  const server = "server_info" in row ? summariseServerInfo(row.server_info) : undefined;
  const raw = trimRawRow(row, server === undefined ? {} : { server_info: server });
  const backend = stringOrNull(row.backend);
  const facts = compactFacts({
    benchmarkTool: "sglang.bench_serving",
    backend,
    engine: server ? "sglang" : engineFromBackend(backend),
    engineVersion: server ? stringOrNull(server.version) : null,
    model: server
      ? (stringOrNull(server.model_path) ?? stringOrNull(server.served_model_name))
      : null,
    tokenizer: server ? stringOrNull(server.tokenizer_path) : null,
    dataset,
    tag: stringOrNull(row.tag),
    inputLen,
    outputLen,
    randomRangeRatio: isRandom ? numberOrNull(row.random_range_ratio) : null,
    server,
  });
  return { point, raw, facts };
}

/**
 * The SGLang `bench_serving` JSONL format module (format id `"sglang-bench-serving"`): key-based
 * detection (`score`) and row mapping (`mapRow`, never throws). See the module comment for the
 * writer versions covered.
 */
export const sglangBenchServing: BenchmarkFormatModule = {
  format: "sglang-bench-serving",
  tool: "SGLang bench_serving",
  score,
  mapRow,
};
