import type { MetricPointInput } from "../protocol/frames";
import { EvalImportError, type EvalFormatModule, type ParsedEvalFile } from "./eval-run";
import {
  baseName,
  iterateLines,
  sha256Hex,
  type ImportProblem,
  type JsonObject,
} from "./source-text";
import { parseNumberLike, parseZonelessDate } from "./source-values";

/**
 * SGLang server log (stdout/stderr of `python -m sglang.launch_server`, or `docker logs`) →
 * a time series run.
 *
 * Writer: the scheduler's periodic decode stats (`Scheduler.log_decode_stats`, every
 * `--decode-log-interval` decode steps, default 40), SGLang 0.4.x–0.5.x. Only lines like
 * `[2026-11-29 09:30:00 TP0] Decode batch. #running-req: 8, #token: 12345, token usage: 0.05,
 * accept len: 3.12, gen throughput (token/s): 456.78, #queue-req: 0` are read: the bracket holds
 * the logger's `%Y-%m-%d %H:%M:%S` time (optionally with a fraction) and the process's rank tags
 * (`TP0`, `DP1 TP4`, `PP0 TP0`…); versions write "Decode batch." or "Decode batch,", may add
 * `accept rate: …` (its definition changed between versions), `cuda graph: True`, PD-disaggregation
 * fields, and a trailing comma. Anything before the bracket (a `docker compose` prefix) is ignored,
 * and so is every other line (prefill batches, HTTP access lines, warnings).
 *
 * How the producer's figure maps to τ: "accept len" is the mean number of tokens per verify step
 * INCLUDING the bonus token over the log window (SGLang sums accepted+bonus tokens and verify
 * forwards per sequence since the previous stats line), printed with 2 decimals — the protocol's τ
 * definition, but without the counts. It is therefore a REPORTED figure: a time series metric
 * `accept_len`, never `run.eval` counts (lib/metrics/tau.ts explains why).
 *
 * Metric points, one per stats line and field present: `accept_len`, `accept_rate`,
 * `gen_throughput_tok_s` (tok/s), `running_req`, `queue_req`, `token_usage` (0-1). Step = the
 * 1-based line number in the file (unique and increasing; a log that grows keeps its old steps),
 * `ts` = the line's time. When the log holds stats of more than one rank tag (DP attention, PP),
 * each key gets the tag as a suffix (`accept_len/DP1-TP4`) so ranks stay separate series.
 * The time has no zone (the server's local time): it is read as UTC, like vLLM's `date`.
 *
 * Run: kind `eval` when any line reports "accept len" (speculative decoding on), else `benchmark`;
 * `startedAt`/`endedAt` = the first/last stats line's time; `config.server` = a summary of the
 * `server_args=ServerArgs(…)` line when the log has one (model, parallelism, speculative settings).
 * Identity: the first stats line, so importing the same log after it grew continues the run (its
 * `run.start` stays the same as long as no new rank tag or server args appear).
 */

/** A decode stats line; groups: date, time, fraction, rank tags, payload. */
const STATS_LINE =
  /\[(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:[.,](\d{1,6}))?((?: [A-Z]{1,4}\d+)*)\] Decode batch[.,]? (#running-req: .*)$/;
/** The same, anywhere in a text (detection). */
const STATS_LINE_ANYWHERE =
  /\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})?(?: [A-Z]{1,4}\d+)*\] Decode batch[.,]? #running-req: \d/m;

/** Log field name → metric key. */
const FIELDS: ReadonlyMap<string, string> = new Map([
  ["accept len", "accept_len"],
  ["accept rate", "accept_rate"],
  ["gen throughput (token/s)", "gen_throughput_tok_s"],
  ["#running-req", "running_req"],
  ["#queue-req", "queue_req"],
  ["token usage", "token_usage"],
]);

/** ServerArgs fields copied into `config.server` when the log prints them. */
const SERVER_ARG_KEYS = [
  "model_path",
  "served_model_name",
  "tp_size",
  "dp_size",
  "pp_size",
  "ep_size",
  "enable_dp_attention",
  "mem_fraction_static",
  "context_length",
  "dtype",
  "quantization",
  "kv_cache_dtype",
  "attention_backend",
  "speculative_algorithm",
  "speculative_draft_model_path",
  "speculative_num_steps",
  "speculative_eagle_topk",
  "speculative_num_draft_tokens",
  "decode_log_interval",
] as const;

/** One parsed decode stats line. */
export interface SglangStatsLine {
  /** 1-based line number. */
  line: number;
  /** Epoch ms (the zoneless time read as UTC). */
  ts: number;
  /** Rank tags joined by "-" (`TP0`, `DP1-TP4`); "" when the bracket has none. */
  rank: string;
  /** Field values by metric key (NaN/±Infinity kept). */
  values: Map<string, number>;
}

/**
 * Parses one log line as a decode stats line, or returns null when it is not one. Fields it knows
 * with a value that is no number are returned in `invalid` (field name and text).
 */
export function parseStatsLine(
  text: string,
  line: number,
): { stats: SglangStatsLine; invalid: [string, string][] } | null {
  const m = STATS_LINE.exec(text);
  if (!m) return null;
  const base = parseZonelessDate(`${m[1]} ${m[2]}`);
  if (base === null) return null;
  const fraction = m[3] ? Math.round(Number(`0.${m[3]}`) * 1000) : 0;
  const rank = (m[4] ?? "").trim().split(/\s+/).filter(Boolean).join("-");
  const values = new Map<string, number>();
  const invalid: [string, string][] = [];
  for (const part of (m[5] as string).split(",")) {
    const pair = /^\s*(.+?):\s*(\S.*?)\s*$/.exec(part);
    if (!pair) continue;
    const key = FIELDS.get(pair[1] as string);
    if (key === undefined) continue;
    const value = parseNumberLike(pair[2]);
    if (value === null) invalid.push([pair[1] as string, pair[2] as string]);
    else values.set(key, value);
  }
  return { stats: { line, ts: base + fraction, rank, values }, invalid };
}

/**
 * The `server_args=ServerArgs(…)` fields of SGLang's start-up line that matter for a run
 * ({@link SERVER_ARG_KEYS}), with Python literals read as JSON values (`'x'` → "x", `True` → true,
 * `None` → null, numbers → numbers). Null when `text` has no such line.
 */
export function summariseServerArgsLine(text: string): JsonObject | null {
  const start = text.indexOf("server_args=ServerArgs(");
  if (start === -1) return null;
  const end = text.indexOf("\n", start);
  const body = text.slice(start, end === -1 ? undefined : end);
  const out: JsonObject = {};
  for (const key of SERVER_ARG_KEYS) {
    const m = new RegExp(`[(,\\s]${key}=('(?:[^'\\\\]|\\\\.)*'|"(?:[^"\\\\]|\\\\.)*"|[^,)]*)`).exec(
      body,
    );
    if (!m) continue;
    const raw = (m[1] as string).trim();
    let value: unknown;
    if (/^'.*'$|^".*"$/.test(raw)) value = raw.slice(1, -1);
    else if (raw === "True" || raw === "False") value = raw === "True";
    else if (raw === "None") value = null;
    else if (/^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(raw)) value = Number(raw);
    else value = raw;
    if (value !== null) out[key] = value;
  }
  return out;
}

/** Parses one SGLang server log; see the module comment for the mapping. */
function parse(path: string, text: string): { parsed: ParsedEvalFile; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const lines: SglangStatsLine[] = [];
  let identity: string | null = null;
  for (const { line, text: lineText } of iterateLines(text)) {
    if (!lineText.includes("Decode batch")) continue;
    const parsed = parseStatsLine(lineText, line);
    if (!parsed) continue;
    identity ??= lineText;
    for (const [name, value] of parsed.invalid)
      problems.push({
        file: path,
        line,
        message: `'${name}' is not a number (${JSON.stringify(value.slice(0, 40))}); skipped`,
      });
    lines.push(parsed.stats);
  }
  if (identity === null)
    throw new EvalImportError(
      path,
      `${path}: not an SGLang server log (no "[<time> TP0] Decode batch. #running-req: …" stats line found)`,
    );

  const ranks = [...new Set(lines.map((l) => l.rank))];
  const suffix = ranks.length > 1;
  const metrics: MetricPointInput[] = [];
  let speculative = false;
  for (const l of lines) {
    for (const [key, value] of l.values) {
      if (key === "accept_len") speculative = true;
      metrics.push({
        key: suffix && l.rank !== "" ? `${key}/${l.rank}` : key,
        step: l.line,
        value,
        ts: l.ts,
      });
    }
  }
  const first = lines[0] as SglangStatsLine;
  const last = lines[lines.length - 1] as SglangStatsLine;
  const server = summariseServerArgsLine(text);
  const config: JsonObject = {
    logTool: "SGLang server",
    speculativeDecoding: speculative,
    ...(ranks.some((r) => r !== "") ? { ranks: ranks.filter((r) => r !== "") } : {}),
    ...(server && Object.keys(server).length > 0 ? { server } : {}),
    ...(typeof server?.model_path === "string" ? { model: server.model_path } : {}),
  };
  return {
    parsed: {
      path,
      contentHash: sha256Hex(text),
      format: "sglang-server-log",
      identity,
      kind: speculative ? "eval" : "benchmark",
      results: [],
      metrics,
      config,
      startedAt: first.ts,
      endedAt: last.ts,
      defaultName: baseName(path),
    },
    problems,
  };
}

/** True when `text` holds at least one SGLang decode stats line (content only, never the file name). */
function recognises(text: string): boolean {
  return STATS_LINE_ANYWHERE.test(text);
}

/** The SGLang server log format module (format id `"sglang-server-log"`). */
export const sglangServerLog: EvalFormatModule = {
  format: "sglang-server-log",
  tool: "SGLang server log",
  recognises,
  parse,
};
