import { describe, expect, test } from "vitest";

import type { MetricPointInput } from "../protocol/frames";
import { stringifyJson } from "../protocol/json";
import { evalRunKey, type ImportedEvalRun } from "./eval-run";
import {
  detectEvalFormat,
  detectImportFormat,
  importEvalFiles,
  importFiles,
  parseStatsLine,
  summariseServerArgsLine,
  UnknownFormatError,
} from "./index";
import { sha256Hex } from "./source-text";
import { expectValidFrames, fixture } from "./testing";

// There is no real SGLang server log in the shared fixtures: the samples below are written from
// SGLang 0.4.x/0.5.x output (launch_server with EAGLE3, TP=2): the `server_args=ServerArgs(…)`
// start-up line, start-up noise, prefill/decode stats lines in both spellings ("Decode batch." and
// "Decode batch,"), `cuda graph:` and `accept rate:` fields, uvicorn access lines, a line with a
// millisecond time, and a `docker compose logs` prefix.
const LOG_LINES = [
  "[2026-11-29 09:28:41] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tokenizer_path='Qwen/Qwen3-8B', tokenizer_mode='auto', skip_tokenizer_init=False, load_format='auto', trust_remote_code=False, dtype='auto', kv_cache_dtype='auto', quantization=None, context_length=None, device='cuda', served_model_name='Qwen/Qwen3-8B', chat_template=None, is_embedding=False, host='0.0.0.0', port=30000, mem_fraction_static=0.88, max_running_requests=None, chunked_prefill_size=8192, max_prefill_tokens=16384, schedule_policy='fcfs', page_size=1, tp_size=2, pp_size=1, stream_interval=1, random_seed=42, watchdog_timeout=300, log_level='info', enable_metrics=True, decode_log_interval=40, api_key=None, dp_size=1, load_balance_method='round_robin', ep_size=1, nnodes=1, node_rank=0, json_model_override_args='{}', attention_backend='fa3', sampling_backend='flashinfer', grammar_backend='xgrammar', speculative_algorithm='EAGLE3', speculative_draft_model_path='Tengyunw/qwen3_8b_eagle3', speculative_num_steps=3, speculative_eagle_topk=1, speculative_num_draft_tokens=4, speculative_accept_threshold_single=1.0, speculative_token_map=None, enable_dp_attention=False, disable_cuda_graph=False, cuda_graph_max_bs=160)",
  "[2026-11-29 09:28:44 TP0] Attention backend not set. Use fa3 backend by default.",
  "[2026-11-29 09:28:44 TP1] Init torch distributed begin.",
  "[2026-11-29 09:29:10 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.10 GB, mem usage=15.43 GB.",
  "[2026-11-29 09:29:12 TP0] KV Cache is allocated. #tokens: 412345, K size: 28.31 GB, V size: 28.31 GB",
  "[2026-11-29 09:29:40 TP0] Capture cuda graph end. Time elapsed: 14.21 s. mem usage=1.20 GB. avail mem=5.83 GB.",
  "[2026-11-29 09:29:41 TP0] max_total_num_tokens=412345, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2048, context_len=40960",
  "[2026-11-29 09:29:42] INFO:     Started server process [12345]",
  "[2026-11-29 09:29:42] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
  "[2026-11-29 09:29:43 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0",
  "[2026-11-29 09:29:45] The server is fired up and ready to roll!",
  "[2026-11-29 09:30:00 TP0] Prefill batch. #new-seq: 8, #new-token: 8000, #cached-token: 0, token usage: 0.02, #running-req: 0, #queue-req: 0",
  "[2026-11-29 09:30:00 TP0] Decode batch. #running-req: 8, #token: 12345, token usage: 0.05, accept len: 3.12, gen throughput (token/s): 456.78, #queue-req: 0",
  "[2026-11-29 09:30:02 TP0] Decode batch. #running-req: 8, #token: 13020, token usage: 0.05, accept len: 3.25, cuda graph: True, gen throughput (token/s): 1210.40, #queue-req: 0, ",
  '[2026-11-29 09:30:02] INFO:     127.0.0.1:40530 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
  "[2026-11-29 09:30:04 TP0] Decode batch. #running-req: 6, #token: 11800, token usage: 0.04, accept len: nan, gen throughput (token/s): 1100.00, #queue-req: 0",
  "[2026-11-29 09:30:06 TP0] Decode batch. #running-req: 2, #token: 4100, token usage: 0.01, accept len: 2.98, gen throughput (token/s): n/a, #queue-req: 0",
  "[2026-11-29 09:30:08.125 TP0] Decode batch, #running-req: 1, #token: 2050, token usage: 0.00, accept len: 3.41, accept rate: 0.60, cuda graph: True, gen throughput (token/s): 210.55, #queue-req: 0,",
  "sglang-1  | [2026-11-29 09:30:10 TP0] Decode batch. #running-req: 1, #token: 2100, token usage: 0.00, accept len: 3.50, gen throughput (token/s): 205.10, #queue-req: 2",
  "[2026-11-29 09:30:11] WARNING:  Invalid HTTP request received.",
];
const LOG = { path: "logs/sglang-qwen3-8b-eagle3.log", text: `${LOG_LINES.join("\n")}\n` };
const lineOf = (needle: string) => LOG_LINES.findIndex((l) => l.includes(needle)) + 1;
const ts = (hms: string, ms = 0) => Date.parse(`2026-11-29T${hms}Z`) + ms;

function metricsOf(run: ImportedEvalRun): MetricPointInput[] {
  return run.frames.flatMap((f) => (f.type === "run.metrics" ? f.points : []));
}

function only(runs: ImportedEvalRun[]): ImportedEvalRun {
  expect(runs).toHaveLength(1);
  return runs[0] as ImportedEvalRun;
}

describe("parseStatsLine", () => {
  test("fields, rank tags and time of one line; other lines are null", () => {
    const parsed = parseStatsLine(LOG_LINES[lineOf("accept rate") - 1] as string, 18);
    expect(parsed?.invalid).toEqual([]);
    expect(parsed?.stats.line).toBe(18);
    expect(parsed?.stats.rank).toBe("TP0");
    expect(parsed?.stats.ts).toBe(ts("09:30:08", 125));
    expect(Object.fromEntries(parsed?.stats.values ?? [])).toEqual({
      running_req: 1,
      token_usage: 0,
      accept_len: 3.41,
      accept_rate: 0.6,
      gen_throughput_tok_s: 210.55,
      queue_req: 0,
    });
    expect(
      parseStatsLine(
        "[2025-06-01 12:00:00 DP1 TP4] Decode batch. #running-req: 60, accept len: 2.80",
        1,
      )?.stats.rank,
    ).toBe("DP1-TP4");
    expect(
      parseStatsLine(
        "[2025-06-01 12:00:00] Decode batch. #running-req: 60, gen throughput (token/s): 5.00",
        1,
      )?.stats.rank,
    ).toBe("");
    expect(
      parseStatsLine(LOG_LINES[lineOf("Prefill batch. #new-seq: 8") - 1] as string, 1),
    ).toBeNull();
    expect(parseStatsLine("Decode batch. #running-req: 8, accept len: 3.12", 1)).toBeNull();
    expect(parseStatsLine("[2026-02-30 09:30:00 TP0] Decode batch. #running-req: 8", 1)).toBeNull();
  });

  test("server args summary", () => {
    expect(summariseServerArgsLine(LOG.text)).toEqual({
      model_path: "Qwen/Qwen3-8B",
      served_model_name: "Qwen/Qwen3-8B",
      tp_size: 2,
      dp_size: 1,
      pp_size: 1,
      ep_size: 1,
      enable_dp_attention: false,
      mem_fraction_static: 0.88,
      dtype: "auto",
      kv_cache_dtype: "auto",
      attention_backend: "fa3",
      speculative_algorithm: "EAGLE3",
      speculative_draft_model_path: "Tengyunw/qwen3_8b_eagle3",
      speculative_num_steps: 3,
      speculative_eagle_topk: 1,
      speculative_num_draft_tokens: 4,
      decode_log_interval: 40,
    });
    expect(summariseServerArgsLine("no args here")).toBeNull();
  });
});

describe("SGLang server log import", () => {
  test("a time series of accept len and throughput, step = line number, ts = line time", () => {
    const result = importEvalFiles([LOG], { host: "kpro5" });
    const run = only(result.runs);
    expectValidFrames(run.frames);
    expect(run.frames.map((f) => f.type)).toEqual(["run.start", "run.metrics", "run.end"]);
    expect(run.kind).toBe("eval");
    expect(run.format).toBe("sglang-server-log");
    expect(run.runKey).toBe(
      evalRunKey("sglang-server-log", LOG_LINES[lineOf("accept len: 3.12") - 1] as string),
    );
    expect(run.name).toBe("sglang-qwen3-8b-eagle3.log");

    const l1 = lineOf("accept len: 3.12");
    const l2 = lineOf("accept len: 3.25");
    const l3 = lineOf("accept len: nan");
    const l4 = lineOf("accept len: 2.98");
    const l5 = lineOf("accept rate");
    const l6 = lineOf("sglang-1  |");
    expect([l1, l2, l3, l4, l5, l6]).toEqual([13, 14, 16, 17, 18, 19]);
    const accept = metricsOf(run).filter((p) => p.key === "accept_len");
    expect(accept).toEqual([
      { key: "accept_len", step: l1, value: 3.12, ts: ts("09:30:00") },
      { key: "accept_len", step: l2, value: 3.25, ts: ts("09:30:02") },
      { key: "accept_len", step: l3, value: Number.NaN, ts: ts("09:30:04") },
      { key: "accept_len", step: l4, value: 2.98, ts: ts("09:30:06") },
      { key: "accept_len", step: l5, value: 3.41, ts: ts("09:30:08", 125) },
      { key: "accept_len", step: l6, value: 3.5, ts: ts("09:30:10") },
    ]);
    expect(
      metricsOf(run)
        .filter((p) => p.key === "gen_throughput_tok_s")
        .map((p) => [p.step, p.value]),
    ).toEqual([
      [l1, 456.78],
      [l2, 1210.4],
      [l3, 1100],
      // l4's "n/a" is a problem, not a 0
      [l5, 210.55],
      [l6, 205.1],
    ]);
    expect(
      metricsOf(run)
        .filter((p) => p.step === l5)
        .map((p) => p.key),
    ).toEqual([
      "accept_len",
      "accept_rate",
      "gen_throughput_tok_s",
      "queue_req",
      "running_req",
      "token_usage",
    ]);
    expect(
      metricsOf(run)
        .filter((p) => p.key === "queue_req")
        .map((p) => p.value),
    ).toEqual([0, 0, 0, 0, 0, 2]);
    // 6 lines × 5 fields, plus one accept rate, minus the unreadable throughput
    expect(run.metricPointCount).toBe(30);
    expect(result.problems).toEqual([
      {
        file: LOG.path,
        line: l4,
        message: `'gen throughput (token/s)' is not a number ("n/a"); skipped`,
      },
    ]);

    expect(run.frames[0]).toMatchObject({
      type: "run.start",
      kind: "eval",
      host: "kpro5",
      startedAt: ts("09:30:00"),
      config: {
        format: "sglang-server-log",
        logTool: "SGLang server",
        speculativeDecoding: true,
        ranks: ["TP0"],
        model: "Qwen/Qwen3-8B",
        server: { speculative_algorithm: "EAGLE3", speculative_num_steps: 3, tp_size: 2 },
        sourceFiles: ["sglang-qwen3-8b-eagle3.log"],
      },
    });
    expect(run.frames.at(-1)).toMatchObject({
      type: "run.end",
      status: "succeeded",
      endedAt: ts("09:30:10"),
    });
    // NaN travels as the string the protocol accepts
    expect(stringifyJson(run.frames[1])).toContain('"value":"NaN"');
  });

  test("a grown log continues the same run; earlier frames keep their ids", () => {
    const head = {
      path: "old/sglang-qwen3-8b-eagle3.log",
      text: `${LOG_LINES.slice(0, 16).join("\n")}\n`,
    };
    const opts = { maxPointsPerFrame: 5 };
    const early = only(importEvalFiles([head], opts).runs);
    const later = only(importEvalFiles([LOG], opts).runs);
    expect(early.runKey).toBe(later.runKey);
    expect(early.frames[1]).toEqual(later.frames[1]);
    expect(early.frames[0]).toEqual(later.frames[0]);
    // both snapshots at once: one run, the newest wins
    const both = importEvalFiles([LOG, head], opts);
    expect(both.problems.filter((p) => p.line !== lineOf("accept len: 2.98"))).toEqual([]);
    const merged = only(both.runs);
    expect(merged.files).toEqual([head.path, LOG.path]);
    expect(metricsOf(merged)).toEqual(metricsOf(later));
    // same input twice → identical frames
    expect(stringifyJson(importEvalFiles([LOG]))).toBe(stringifyJson(importEvalFiles([LOG])));
  });

  test("DP attention ranks become separate series; a log without speculation is a benchmark run", () => {
    const dp = [
      "[2025-06-01 12:00:00 DP0 TP0] Decode batch. #running-req: 64, #token: 90000, token usage: 0.40, accept len: 2.71, cuda graph: True, gen throughput (token/s): 3000.10, #queue-req: 3,",
      "[2025-06-01 12:00:00 DP1 TP4] Decode batch. #running-req: 60, #token: 85000, token usage: 0.38, accept len: 2.80, cuda graph: True, gen throughput (token/s): 2890.55, #queue-req: 1,",
    ].join("\n");
    const run = only(importEvalFiles([{ path: "dp.log", text: dp }]).runs);
    expect(
      metricsOf(run)
        .filter((p) => p.key.startsWith("accept_len"))
        .map((p) => [p.key, p.step, p.value]),
    ).toEqual([
      ["accept_len/DP0-TP0", 1, 2.71],
      ["accept_len/DP1-TP4", 2, 2.8],
    ]);
    expect(run.frames[0]).toMatchObject({ config: { ranks: ["DP0-TP0", "DP1-TP4"] } });

    const plain =
      "[2025-02-20 08:14:03 TP0] Decode batch. #running-req: 32, #token: 48000, token usage: 0.22, gen throughput (token/s): 2500.00, #queue-req: 0\n";
    const bench = only(importEvalFiles([{ path: "plain.log", text: plain }]).runs);
    expect(bench.kind).toBe("benchmark");
    expect(bench.frames[0]).toMatchObject({
      kind: "benchmark",
      config: { speculativeDecoding: false },
    });
    expect(metricsOf(bench).map((p) => p.key)).toEqual([
      "gen_throughput_tok_s",
      "queue_req",
      "running_req",
      "token_usage",
    ]);
  });

  test("detection by content; anything else is not a log", () => {
    expect(detectEvalFormat(LOG.text)).toBe("sglang-server-log");
    expect(detectImportFormat(LOG.text)).toBeNull();
    expect(detectEvalFormat(LOG_LINES.slice(0, 12).join("\n"))).toBeNull();
    expect(
      detectEvalFormat(
        fixture("sglang-bench-serving", "datacrunch_2024-12_llama_3_3_70b_online_output.jsonl")
          .text,
      ),
    ).toBeNull();
    expect(() =>
      importEvalFiles([{ path: "boot.log", text: LOG_LINES.slice(0, 12).join("\n") }]),
    ).toThrow(UnknownFormatError);
    const mixed = importFiles([LOG]);
    expect(mixed.evalRuns.map((r) => r.runKey)).toEqual([
      evalRunKey("sglang-server-log", LOG_LINES[12] as string),
    ]);
    expect(sha256Hex(LOG.text)).not.toBe(mixed.evalRuns[0]?.runKey);
  });
});
