import type { BenchmarkDocumentModule } from "./benchmark-document";
import type { ParsedFile } from "./benchmark-run";
import {
  compactFacts,
  engineFromBackend,
  type PointFields,
  type RowMapping,
} from "./source-common";
import {
  baseName,
  countLines,
  isPlainObject,
  sha256Hex,
  type ImportProblem,
  type JsonObject,
} from "./source-text";
import {
  nonNegIntOrNull,
  parseNumberLike,
  parseRequestRate,
  setOwn,
  stringOrNull,
} from "./source-values";

/**
 * NVIDIA GenAI-Perf `artifacts/<run>/profile_export_genai_perf.json` (and its successor AIPerf's
 * `profile_export_aiperf.json`, same metric layout) → benchmark points.
 *
 * Writer: triton-inference-server/perf_analyzer `genai-perf/genai_perf/export_data/json_exporter.py`
 * (read at commits 09628cd6 and 4cc7650c, 2024–2025; fixture `genai-perf/SCHEMA.md`): one pretty
 * JSON object (indent 2) = the stats dict + `"input_config"`. Stats: `"<metric>": {"unit", "avg",
 * "p99", "p95", "p90", "p75", "p50", "p25", "min", "max", "std"}` for distributions, `{"unit",
 * "avg"}` for throughputs; numbers may be strings ("7"). Metric names: `request_throughput`
 * (requests/sec), `request_latency`, `time_to_first_token`, `time_to_second_token`,
 * `inter_token_latency` (ms), `output_token_throughput` (tokens/sec),
 * `output_token_throughput_per_user` / `…_per_request`, `output_sequence_length` /
 * `input_sequence_length` (tokens), `request_goodput`, `request_count`; AIPerf adds
 * `benchmark_duration` (sec), `error_request_count`. `input_config` is the CLI args, flat
 * (`concurrency`, `request_rate`, `synthetic_input_tokens_mean`, `output_tokens_mean` (−1 = unset),
 * `streaming`, `model`, `backend`, `service_kind`, `endpoint_type`, `tokenizer`…) in the argparse
 * versions, nested by section in the config-file versions (`perf_analyzer.stimulus.concurrency`,
 * `input.synthetic_tokens.mean`, `input.output_tokens.mean`, `endpoint.streaming`, `model_names`…);
 * both are read. `backend` (default "tensorrtllm") is only a fact for Triton (`service_kind` triton). One file is ONE load level: an import of several files makes one run (a sweep),
 * even without a name.
 *
 * Mapping (times converted to ms from the metric's own `unit`: ns, us, ms, s/sec):
 * - `concurrency` / `requestRate`: from `input_config` (flat or `perf_analyzer.stimulus`).
 * - `inputLen` / `outputLen`: the configured synthetic input mean / output mean (> 0), else the
 *   rounded measured mean sequence length.
 * - `completed`: `request_count.avg` (newer writers); `failed`: AIPerf `error_request_count.avg`;
 *   `durationS`: AIPerf `benchmark_duration` (GenAI-Perf writes no duration: null).
 * - `requestThroughput` / `outputTokPerS`: `request_throughput.avg` / `output_token_throughput.avg`;
 *   `totalTokPerS`: null (not written).
 * - TTFT and E2E (`request_latency`): avg → mean, p50 → median, p99. Without streaming
 *   (`streaming: false`, or a `time_to_first_token` distribution equal to `request_latency`'s, which
 *   is what GenAI-Perf writes then) TTFT and TPOT are "not measured": null, never charted.
 * - GenAI-Perf's "inter_token_latency" is computed per request as (latency − TTFT) / (output tokens
 *   − 1): what SGLang and vLLM call TPOT, so it maps to `tpotMs*`; `itlMs*` (per-chunk gaps) stay
 *   null. Without streaming neither TTFT nor ITL is written: null. A 0 is "not measured": null.
 * - `raw`: the document without `telemetry_stats` and `sessions`, header/API-key arguments redacted.
 * - Run config: `benchmarkTool` ("genai-perf" or "aiperf"), `model`, `backend`, `engine` (from the
 *   backend, null for generic OpenAI endpoints), `serviceKind`, `endpointType`, `streaming`,
 *   `tokenizer`. No timestamps (AIPerf's ISO `start_time`/`end_time` are used when present).
 */

/** Metric keys of the stats dict; a document needs two of them (as objects with a `unit`). */
const METRIC_KEYS = [
  "request_throughput",
  "request_latency",
  "time_to_first_token",
  "time_to_second_token",
  "inter_token_latency",
  "output_token_throughput",
  "output_token_throughput_per_user",
  "output_token_throughput_per_request",
  "output_sequence_length",
  "input_sequence_length",
  "request_goodput",
  "request_count",
  "error_request_count",
  "benchmark_duration",
] as const;

/** Argument names whose values may hold credentials; replaced in `raw`. */
const SECRET_ARGS: ReadonlySet<string> = new Set([
  "header",
  "headers",
  "api_key",
  "api-key",
  "apikey",
  "authorization",
]);

/** True for a parsed GenAI-Perf / AIPerf profile export: `input_config` (or `aiperf_version`) and two metric objects with a `unit`. */
function recognises(doc: unknown): boolean {
  if (!isPlainObject(doc)) return false;
  if (!isPlainObject(doc.input_config) && typeof doc.aiperf_version !== "string") return false;
  let metrics = 0;
  for (const key of METRIC_KEYS) {
    const m = doc[key];
    if (isPlainObject(m) && typeof m.unit === "string") metrics++;
  }
  return metrics >= 2;
}

/**
 * `value` of a time metric in `unit` converted to milliseconds (divisions for the smaller units, so
 * 41200000 ns is exactly 41.2 ms), or null for a unit that is not a time.
 */
function toMs(value: number, unit: unknown): number | null {
  switch (typeof unit === "string" ? unit.trim().toLowerCase() : "") {
    case "ns":
      return value / 1e6;
    case "us":
    case "µs":
      return value / 1e3;
    case "ms":
      return value;
    case "s":
    case "sec":
    case "secs":
    case "seconds":
      return value * 1000;
    default:
      return null;
  }
}

/** Reads `doc[path[0]][path[1]]…`, undefined when a step is missing or not an object. */
function dig(doc: unknown, ...path: string[]): unknown {
  let cur: unknown = doc;
  for (const p of path) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function positiveOrNull(value: unknown): number | null {
  const n = parseNumberLike(value);
  return n !== null && Number.isFinite(n) && n > 0 ? n : null;
}

/** A copy of `value` with credential-bearing arguments replaced by "[redacted]", at any depth. */
function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value))
    setOwn(out, k, SECRET_ARGS.has(k.toLowerCase()) && v !== null ? "[redacted]" : redact(v));
  return out;
}

/** Maps one profile export document; `problems` gets unit surprises (reported once per metric). */
function mapDocument(path: string, doc: JsonObject, problems: ImportProblem[]): RowMapping {
  const ic = isPlainObject(doc.input_config) ? doc.input_config : {};
  const stat = (name: string, field: string): number | null => {
    const v = dig(doc, name, field);
    return v === undefined || v === null ? null : parseNumberLike(v);
  };
  const warned = new Set<string>();
  const timeMs = (name: string, field: string): number | null => {
    const v = stat(name, field);
    if (v === null || v === 0) return null;
    const ms = toMs(v, dig(doc, name, "unit"));
    if (ms === null) {
      if (!warned.has(name)) {
        warned.add(name);
        problems.push({
          file: path,
          line: 1,
          message: `'${name}' has unit ${JSON.stringify(dig(doc, name, "unit") ?? null)}, not a time unit; left out`,
        });
      }
      return null;
    }
    return ms;
  };

  const streaming = ic.streaming ?? dig(ic, "endpoint", "streaming");
  // Without streaming the client sees the whole answer at once: GenAI-Perf then writes the request
  // latency as `time_to_first_token` (and a 0 or meaningless inter-token latency). Not a TTFT.
  const streamed =
    streaming !== false && !sameDistribution(doc, "time_to_first_token", "request_latency");
  const whenStreamed = <T>(v: T): T | null => (streamed ? v : null);

  const stimulus = dig(ic, "perf_analyzer", "stimulus");
  const concurrency = nonNegIntOrNull(
    parseNumberLike(ic.concurrency ?? dig(stimulus, "concurrency")),
  );
  const rate = parseRequestRate(ic.request_rate ?? dig(stimulus, "request_rate") ?? null);
  const completed = nonNegIntOrNull(stat("request_count", "avg"));
  const allFailed = completed === 0;
  const ok = <T>(v: T): T | null => (allFailed ? null : v);

  const inputFile = dig(ic, "input", "file");
  const promptSource = stringOrNull(ic.prompt_source);
  const synthetic =
    promptSource !== null
      ? promptSource === "synthetic"
      : inputFile === undefined ||
        inputFile === null ||
        inputFile === "" ||
        String(inputFile).startsWith("synthetic:");
  const configuredInput = synthetic
    ? positiveOrNull(ic.synthetic_input_tokens_mean ?? dig(ic, "input", "synthetic_tokens", "mean"))
    : null;
  const configuredOutput = positiveOrNull(
    ic.output_tokens_mean ?? dig(ic, "input", "output_tokens", "mean"),
  );
  const rounded = (v: number | null): number | null =>
    nonNegIntOrNull(v === null ? null : Math.round(v));
  const inputLen = rounded(configuredInput ?? stat("input_sequence_length", "avg"));
  const outputLen = rounded(configuredOutput ?? stat("output_sequence_length", "avg"));
  const dataset =
    stringOrNull(ic.input_dataset) ??
    promptSource ??
    (synthetic ? "synthetic" : typeof inputFile === "string" ? baseName(inputFile) : null);

  const duration = stat("benchmark_duration", "avg");
  // AIPerf writes "sec"; a duration without a time unit is taken as seconds.
  const durationMs =
    duration === null ? null : toMs(duration, dig(doc, "benchmark_duration", "unit"));
  const durationS = duration === null ? null : durationMs === null ? duration : durationMs / 1000;
  const point: PointFields = {
    scenario: "throughput",
    dataset: dataset?.slice(0, 200) ?? null,
    concurrency: concurrency !== null && concurrency > 0 ? concurrency : null,
    measuredConcurrency: null,
    ...rate,
    inputLen,
    outputLen,
    completed,
    failed: nonNegIntOrNull(stat("error_request_count", "avg")),
    durationS,
    requestThroughput: ok(stat("request_throughput", "avg")),
    outputTokPerS: ok(stat("output_token_throughput", "avg")),
    totalTokPerS: null,
    ttftMsMean: ok(whenStreamed(timeMs("time_to_first_token", "avg"))),
    ttftMsMedian: ok(whenStreamed(timeMs("time_to_first_token", "p50"))),
    ttftMsP99: ok(whenStreamed(timeMs("time_to_first_token", "p99"))),
    tpotMsMean: ok(whenStreamed(timeMs("inter_token_latency", "avg"))),
    tpotMsMedian: ok(whenStreamed(timeMs("inter_token_latency", "p50"))),
    tpotMsP99: ok(whenStreamed(timeMs("inter_token_latency", "p99"))),
    itlMsMean: null,
    itlMsMedian: null,
    itlMsP99: null,
    e2eMsMean: ok(timeMs("request_latency", "avg")),
    e2eMsMedian: ok(timeMs("request_latency", "p50")),
    e2eMsP99: ok(timeMs("request_latency", "p99")),
    acceptLength: null,
  };

  const modelValue = ic.model ?? ic.model_names ?? dig(ic, "endpoint", "model_names");
  const models = (Array.isArray(modelValue) ? modelValue : [modelValue]).filter(
    (m): m is string => typeof m === "string" && m.length > 0,
  );
  const serviceKind = stringOrNull(ic.service_kind ?? dig(ic, "endpoint", "service_kind"));
  // `backend` (default "tensorrtllm") only means something for Triton's KServe endpoint.
  const backend =
    serviceKind === "triton" ? stringOrNull(ic.backend ?? dig(ic, "endpoint", "backend")) : null;
  const endpointType = stringOrNull(ic.endpoint_type ?? dig(ic, "endpoint", "type"));
  const facts = compactFacts({
    benchmarkTool: typeof doc.aiperf_version === "string" ? "aiperf" : "genai-perf",
    toolVersion: stringOrNull(doc.aiperf_version),
    model: models.length === 0 ? null : models.length === 1 ? models[0] : models,
    backend,
    // Only Triton's backend names an engine (vllm, tensorrtllm); an OpenAI endpoint says nothing.
    engine: backend === "tensorrtllm" ? "tensorrt-llm" : engineFromBackend(backend),
    serviceKind,
    endpointType,
    streaming: typeof streaming === "boolean" ? streaming : null,
    tokenizer: stringOrNull(
      typeof ic.tokenizer === "string" ? ic.tokenizer : dig(ic, "tokenizer", "name"),
    ),
    dataset: point.dataset,
    inputLen,
    outputLen,
  });

  const raw: JsonObject = {};
  for (const [k, v] of Object.entries(doc)) {
    if (k === "telemetry_stats" || k === "sessions") continue;
    setOwn(raw, k, k === "input_config" ? redact(v) : v);
  }
  const mapping: RowMapping = { point, raw, facts };
  const start = typeof doc.start_time === "string" ? Date.parse(doc.start_time) : Number.NaN;
  const end = typeof doc.end_time === "string" ? Date.parse(doc.end_time) : Number.NaN;
  if (Number.isFinite(start) && start >= 0) mapping.startedAtMs = start;
  if (Number.isFinite(end) && end >= 0) mapping.endedAtMs = end;
  return mapping;
}

/**
 * True when the two metrics of `doc` hold the same distribution: equal `avg`, `p50` and `p99` (read
 * as numbers in the metrics' own units, which must match). GenAI-Perf without streaming writes the
 * request latency as the time to first token, so equality means "TTFT not measured".
 */
function sameDistribution(doc: JsonObject, a: string, b: string): boolean {
  const ma = doc[a];
  const mb = doc[b];
  if (!isPlainObject(ma) || !isPlainObject(mb) || ma.unit !== mb.unit) return false;
  const fields = ["avg", "p50", "p99"].filter((f) => ma[f] !== undefined || mb[f] !== undefined);
  return (
    fields.length > 0 &&
    fields.every((f) => {
      const x = parseNumberLike(ma[f]);
      const y = parseNumberLike(mb[f]);
      return x !== null && y !== null && x === y;
    })
  );
}

/** Parses one profile export into a one-point file (the point sits on line 1). */
function parse(
  path: string,
  text: string,
  doc: JsonObject,
): { parsed: ParsedFile; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const mapping = mapDocument(path, doc, problems);
  return {
    parsed: {
      path,
      contentHash: sha256Hex(text),
      format: "genai-perf",
      lineCount: countLines(text),
      records: [{ line: 1, text, mapping }],
    },
    problems,
  };
}

/** Level suffixes GenAI-Perf appends to its artifact folder names (`…-concurrency32`, `…-request_rate10.0`). */
const LEVEL_SUFFIX = /-(?:concurrency|request_rate|session_concurrency)[\d.]+$/;

/**
 * Run name for profile exports: the artifact folder above the file (GenAI-Perf names it
 * `<model>-<service kind>-<endpoint>-concurrency<N>`), without the level suffix when the run holds
 * several files; the file's base name when the path names no folder.
 */
function defaultRunName(paths: readonly string[]): string {
  const folders = paths.map((p) =>
    p.split(/[\\/]/).filter((s) => s !== "" && s !== "." && s !== ".."),
  );
  const names = folders.map((parts) =>
    parts.length >= 2 ? (parts[parts.length - 2] as string) : null,
  );
  const first = names[0];
  if (first === null || first === undefined)
    return baseName(paths[0] ?? "profile_export_genai_perf.json");
  if (paths.length === 1) return first;
  const stripped = [...new Set(names.map((n) => (n ?? "").replace(LEVEL_SUFFIX, "")))];
  return stripped.length === 1 && stripped[0] ? stripped[0] : first.replace(LEVEL_SUFFIX, "");
}

/** The GenAI-Perf / AIPerf profile export module (format id `"genai-perf"`). */
export const genaiPerf: BenchmarkDocumentModule = {
  format: "genai-perf",
  tool: "GenAI-Perf",
  recognises,
  parse,
  oneRunPerImport: true,
  defaultRunName,
};
