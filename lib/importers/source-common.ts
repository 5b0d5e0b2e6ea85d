import type { BenchmarkPointInput } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import { isPlainObject, type JsonObject } from "./source-text";
import { setOwn } from "./source-values";

/**
 * The benchmark importers' shared base: the format registry's types, raw-row trimming (per-request
 * arrays left out) and run-config merging. Source reading lives in source-text.ts, value coercion
 * in source-values.ts; no format module borrows from another family.
 */

export const BENCHMARK_FORMATS = [
  "sglang-bench-serving",
  "vllm-bench-serve",
  "genai-perf",
  "guidellm",
] as const;
/**
 * `"sglang-bench-serving"` (SGLang `bench_serving --output-file`), `"vllm-bench-serve"` (vLLM
 * `bench serve --save-result`), `"genai-perf"` (NVIDIA GenAI-Perf `profile_export_genai_perf.json`)
 * or `"guidellm"` (GuideLLM `benchmarks.json`).
 */
export type BenchmarkFormat = (typeof BENCHMARK_FORMATS)[number];

/** The point fields a format module derives from one row; key, ord and raw are added by the run builder. */
export type PointFields = Omit<BenchmarkPointInput, "key" | "ord" | "raw">;

/**
 * What a format module makes of one source row.
 * - `point`: protocol point fields (latencies ms, throughputs tok/s or req/s, duration s).
 * - `raw`: the row minus per-request arrays and blobs (non-finite numbers kept as JS numbers).
 * - `facts`: run-config facts from this row; the run config merges them over all rows.
 * - `startedAtMs` / `endedAtMs`: epoch ms when the row carries a timestamp (vLLM `date`).
 */
export interface RowMapping {
  point: PointFields;
  raw: JsonObject;
  facts: JsonObject;
  startedAtMs?: number;
  endedAtMs?: number;
}

/**
 * One importer format. `score(row)` says how much a parsed JSON object looks like this format's
 * result row (count of marker keys; 0 = not at all); the highest score with at least
 * {@link MIN_FORMAT_SCORE} wins. `mapRow` turns a row of this format into a {@link RowMapping}
 * and never throws on odd values (they become null and stay visible in `raw`).
 */
export interface BenchmarkFormatModule {
  format: BenchmarkFormat;
  /** Human name of the writing tool, used in messages ("SGLang bench_serving"). */
  tool: string;
  score(row: JsonObject): number;
  mapRow(row: JsonObject): RowMapping;
}

/** Fewest marker keys a row needs before it is attributed to a format. */
export const MIN_FORMAT_SCORE = 2;

/**
 * Top-level keys that hold per-request arrays (one entry per request) in either writer:
 * SGLang `--output-details` (top level, or nested under `details` in the refactored writer) and
 * vLLM `--save-detailed` (plus `latencies`/`queue_times`, which newer vLLM writes even without it).
 */
export const PER_REQUEST_KEYS: ReadonlySet<string> = new Set([
  "input_lens",
  "output_lens",
  "ttfts",
  "itls",
  "tpots",
  "latencies",
  "e2els",
  "start_times",
  "queue_times",
  "generated_texts",
  "errors",
  "details",
]);

/** Arrays longer than this are treated as per-request data and left out of `raw` as well. */
export const MAX_RAW_ARRAY_LENGTH = 256;

/**
 * The row for a point's `raw`: a shallow copy without {@link PER_REQUEST_KEYS} and without any
 * other array longer than {@link MAX_RAW_ARRAY_LENGTH}; keys in `replace` take the given value
 * instead (e.g. `server_info` → a short summary). Key order is kept; values are not copied.
 */
export function trimRawRow(row: JsonObject, replace: JsonObject = {}): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(row)) {
    if (Object.hasOwn(replace, key)) {
      setOwn(out, key, replace[key]);
      continue;
    }
    if (PER_REQUEST_KEYS.has(key)) continue;
    if (Array.isArray(value) && value.length > MAX_RAW_ARRAY_LENGTH) continue;
    setOwn(out, key, value);
  }
  return out;
}

/**
 * Engine implied by a benchmark client's `backend` name: sglang* → "sglang", vllm* → "vllm",
 * lmdeploy* → "lmdeploy", trt* → "tensorrt-llm", tgi → "tgi"; null for generic clients such as
 * "openai" / "openai-chat", which say nothing about the server behind them.
 */
export function engineFromBackend(backend: string | null): string | null {
  if (!backend) return null;
  const b = backend.toLowerCase();
  for (const [prefix, engine] of [
    ["sglang", "sglang"],
    ["vllm", "vllm"],
    ["lmdeploy", "lmdeploy"],
    ["trt", "tensorrt-llm"],
    ["tensorrt", "tensorrt-llm"],
    ["tgi", "tgi"],
  ] as const) {
    if (b === prefix || b.startsWith(`${prefix}-`) || b.startsWith(`${prefix}_`)) return engine;
  }
  return null;
}

/**
 * Merges per-row config facts into one run config. For each key (first-seen order) among the rows
 * that have a non-null value: nested plain objects merge recursively; a value shared by all
 * those rows is kept as is; differing values become the array of distinct values in first-seen
 * order (compared by their JSON text). Rows without the key do not count.
 */
export function mergeFacts(rows: readonly JsonObject[]): JsonObject {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  const out: JsonObject = {};
  for (const key of keys) {
    const values: unknown[] = [];
    for (const row of rows) {
      const v = Object.hasOwn(row, key) ? row[key] : undefined;
      if (v !== undefined && v !== null) values.push(v);
    }
    if (values.length === 0) continue;
    if (values.every(isPlainObject)) {
      setOwn(out, key, mergeFacts(values));
      continue;
    }
    const distinct = new Map<string, unknown>();
    for (const v of values) {
      const id = stringifyJson(v);
      if (!distinct.has(id)) distinct.set(id, v);
    }
    setOwn(out, key, distinct.size === 1 ? values[0] : [...distinct.values()]);
  }
  return out;
}

/** Copy of `facts` without keys whose value is undefined or null (so merged configs stay small). */
export function compactFacts(facts: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(facts)) if (v !== undefined && v !== null) setOwn(out, k, v);
  return out;
}
