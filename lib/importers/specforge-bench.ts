import { fromSpecVerifyCount, reportedTauMetricKey } from "../metrics/tau";
import type { EvalResultInput, MetricPointInput } from "../protocol/frames";
import { EvalImportError, type EvalFormatModule, type ParsedEvalFile } from "./eval-run";
import {
  baseName,
  isPlainObject,
  readJsonDocument,
  sha256Hex,
  topLevelArrayElementLines,
  type ImportProblem,
  type JsonObject,
} from "./source-text";

/**
 * SpecForge `benchmarks/bench_eagle3.py` results → an eval run.
 *
 * Writer: sgl-project/SpecForge `benchmarks/bench_eagle3.py` with `benchmarks/benchmarker/`
 * (`base.py`, `utils.py`), as of snapshot a6b6b023 (fixture `specforge-bench-eagle3/`). The file is
 * named `[<name>_]results_<YYYYmmdd_HHMMSS>.jsonl` but is ONE pretty-printed JSON object
 * (`json.dump(indent=4)`): `"model"` (the draft model path, null without one; the docs sample omits
 * it) and one key per benchmark (`mtbench`, `gsm8k`, …) → a list of config rows
 * `{batch_size, steps, topk, num_draft_tokens, metrics: [one per run], num_samples}`. Each metrics
 * entry is `{latency (s, whole benchmark), output_throughput (tok/s), accept_length, accuracy (0-1
 * or null), num_questions, num_valid_predictions, categorical_performance (null or
 * {category: same object})}`. `steps`/`topk`/`num_draft_tokens` are null with `--skip-launch-server`;
 * `steps` 0 is the no-speculation baseline (the server is started without a draft model).
 *
 * How the producer's figure maps to τ: the writer computes, over all questions of a run,
 * `output_throughput = Σ completion_tokens / latency` and `accept_length = Σ completion_tokens /
 * Σ spec_verify_ct` (1.0 when the server reports no `spec_verify_ct`), i.e. tokens per verify step
 * INCLUDING the bonus token — the protocol's τ. The file holds no counts, but they are recovered
 * EXACTLY: tokens = round(latency × output_throughput), verify steps = round(tokens /
 * accept_length), accepted = tokens − verify steps (= (accept_length − 1) × verify steps). The
 * recovery is accepted only when recomputing the writer's two divisions from these integers gives
 * back the file's two floats bit for bit (IEEE division is deterministic and Python's JSON floats
 * round-trip). On the docs sample: mtbench 3911 tokens over 1802 steps, gsm8k 13981 over 5289.
 * (Completion tokens include each request's first token, which the prefill produced without a
 * verify step, so this τ is a little above a decode-only τ; it is kept so that τ equals the figure
 * SpecForge and SGLang print.)
 *
 * So each (benchmark, config row, run) becomes one `run.eval` result with measured counts:
 * promptId and category = the benchmark name (the whole prompt group), `draft` = the row's
 * batch_size/steps/topk/num_draft_tokens, `outputTokPerS` = output_throughput, checkpoint label =
 * `model` when present. When `categorical_performance` is present and every category recovers and
 * sums to the total, the categories become the results instead (category
 * `<benchmark>/<category>`), so nothing is counted twice; otherwise the total is the result and
 * the categories' accept lengths are reported as `tau/<benchmark>/<category>`.
 *
 * When the counts cannot be recovered (a rounded or edited file, a zero latency), the accept length
 * is NOT turned into guessed counts: it is stored as a reported figure, metric `tau/<benchmark>`
 * (lib/metrics/tau.ts). Rows with `steps` 0, or an accept_length of exactly 1.0 (the writer's "no
 * verify counts" value), carry no τ at all; with `steps` > 0 the latter is a problem (speculation
 * was configured but the server reported no verify counts).
 *
 * Metric points (step = the index of the row's draft config in `config.draftConfigs`, configs
 * numbered in order of first appearance; several runs of one row are averaged, as the writer's
 * `print_results` does): `output_tok_s/<benchmark>` (tok/s), `latency_s/<benchmark>` (s),
 * `accuracy/<benchmark>` (0-1, when not null), and the reported `tau/…` points above. The
 * no-speculation baseline's throughput is thus next to the speculative rows'.
 *
 * Identity: the whole file (a results file is written once, at the end).
 */

/** Keys of a config row that describe the draft settings, as the writer names them. */
const DRAFT_KEYS = ["batch_size", "steps", "topk", "num_draft_tokens"] as const;

type DraftSettings = Record<(typeof DRAFT_KEYS)[number], number | null>;

/** True for a parsed bench_eagle3 results document (see the module comment for the shape). */
export function isSpecForgeResults(doc: unknown): doc is JsonObject {
  if (!isPlainObject(doc)) return false;
  let benchmarks = 0;
  for (const [key, value] of Object.entries(doc)) {
    if (key === "model") {
      if (value !== null && typeof value !== "string") return false;
      continue;
    }
    if (!Array.isArray(value) || value.length === 0) return false;
    if (
      !value.every(
        (row) =>
          isPlainObject(row) && Object.hasOwn(row, "batch_size") && Array.isArray(row.metrics),
      )
    )
      return false;
    benchmarks++;
  }
  return benchmarks > 0;
}

/** Exact counts behind a SpecForge metrics object, or the reason they cannot be recovered. */
export type RecoveredCounts =
  { ok: true; tokens: number; verifySteps: number } | { ok: false; reason: string };

/**
 * Recovers Σ completion_tokens and Σ spec_verify_ct from a SpecForge metrics object's `latency`,
 * `output_throughput` and `accept_length` (see the module comment): accepted only when
 * `tokens / latency` and `tokens / verifySteps` reproduce the file's floats exactly.
 */
export function recoverSpecForgeCounts(
  latencyS: number,
  outputTokPerS: number,
  acceptLength: number,
): RecoveredCounts {
  if (!(latencyS > 0) || !Number.isFinite(latencyS))
    return { ok: false, reason: `latency ${latencyS} is not a positive number` };
  if (!(outputTokPerS > 0) || !Number.isFinite(outputTokPerS))
    return { ok: false, reason: `output_throughput ${outputTokPerS} is not a positive number` };
  const tokens = Math.round(latencyS * outputTokPerS);
  if (tokens <= 0 || tokens / latencyS !== outputTokPerS)
    return { ok: false, reason: "latency × output_throughput is not a whole token count" };
  const verifySteps = Math.round(tokens / acceptLength);
  if (verifySteps <= 0 || tokens / verifySteps !== acceptLength)
    return { ok: false, reason: `${tokens} tokens / accept_length is not a whole verify count` };
  return { ok: true, tokens, verifySteps };
}

/** A value for a message: numbers as JS prints them (NaN, Infinity), the rest as JSON (cut to 40 chars). */
function describeValue(value: unknown): string {
  return typeof value === "number"
    ? String(value)
    : (JSON.stringify(value ?? null) ?? "undefined").slice(0, 40);
}

function finite(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** Result key, unique within the file, at most 200 chars. */
function resultKey(row: number, run: number, benchmark: string, category?: string): string {
  const key = `r${row}.${run}:${benchmark}${category !== undefined ? `/${category}` : ""}`;
  return key.length <= 200 ? key : `r${row}.${run}:${sha256Hex(key).slice(0, 32)}`;
}

/** Averages of metric values per (key, step), in first-seen order. */
class MetricMeans {
  private readonly sums = new Map<string, { key: string; step: number; values: number[] }>();
  add(key: string, step: number, value: number): void {
    const id = `${key}\u0000${step}`;
    const entry = this.sums.get(id);
    if (entry) entry.values.push(value);
    else this.sums.set(id, { key, step, values: [value] });
  }
  points(): MetricPointInput[] {
    return [...this.sums.values()].map(({ key, step, values }) => ({
      key,
      step,
      value: values.reduce((a, b) => a + b, 0) / values.length,
    }));
  }
}

/** Parses one bench_eagle3 results file; see the module comment for the mapping. */
function parse(path: string, text: string): { parsed: ParsedEvalFile; problems: ImportProblem[] } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const doc = readJsonDocument(text);
  if (!isSpecForgeResults(doc))
    throw new EvalImportError(
      path,
      `${path}: not a SpecForge bench_eagle3 results file (expected one JSON object of benchmark name → list of config rows with 'metrics')`,
    );
  const problems: ImportProblem[] = [];
  const model = typeof doc.model === "string" && doc.model.length > 0 ? doc.model : null;
  const checkpoint = model !== null ? { label: model.slice(0, 200) } : {};

  const configs: DraftSettings[] = [];
  const configIndex = new Map<string, number>();
  const results: EvalResultInput[] = [];
  const means = new MetricMeans();
  const datasets: JsonObject = {};

  for (const [benchmark, rowsValue] of Object.entries(doc)) {
    if (benchmark === "model") continue;
    const rows = rowsValue as JsonObject[];
    const lines = topLevelArrayElementLines(body, benchmark);
    const lineOf = (i: number) => (lines.length === rows.length ? (lines[i] as number) : 1);
    const dataset = benchmark.slice(0, 200);
    const questions: number[] = [];
    for (const [r, row] of rows.entries()) {
      const line = lineOf(r);
      const draft = Object.fromEntries(DRAFT_KEYS.map((k) => [k, finite(row[k])])) as DraftSettings;
      const configId = JSON.stringify(DRAFT_KEYS.map((k) => draft[k]));
      let step = configIndex.get(configId);
      if (step === undefined) {
        step = configs.length;
        configIndex.set(configId, step);
        configs.push(draft);
      }
      const specOff = draft.steps === 0;
      for (const [k, m] of (row.metrics as unknown[]).entries()) {
        if (!isPlainObject(m)) {
          problems.push({
            file: path,
            line,
            message: `${benchmark}[${r}].metrics[${k}] is not an object; skipped`,
          });
          continue;
        }
        const latency = finite(m.latency);
        const throughput = finite(m.output_throughput);
        if (throughput !== null) means.add(`output_tok_s/${dataset}`, step, throughput);
        if (latency !== null) means.add(`latency_s/${dataset}`, step, latency);
        if (typeof m.accuracy === "number") means.add(`accuracy/${dataset}`, step, m.accuracy);
        if (typeof m.num_questions === "number" && k === 0) questions.push(m.num_questions);
        if (specOff) continue;

        const acceptLength = finite(m.accept_length);
        if (acceptLength === null || acceptLength < 1) {
          problems.push({
            file: path,
            line,
            message: `${benchmark}[${r}].metrics[${k}]: accept_length ${describeValue(m.accept_length)} is not a number ≥ 1; no τ imported for it`,
          });
          continue;
        }
        if (acceptLength === 1) {
          if (draft.steps !== null) {
            problems.push({
              file: path,
              line,
              message: `${benchmark}[${r}].metrics[${k}]: speculative decoding was configured (steps ${draft.steps}) but accept_length is 1.0, the writer's value when the server reports no spec_verify_ct; no τ imported for it`,
            });
          }
          continue;
        }
        const counts =
          latency !== null && throughput !== null
            ? recoverSpecForgeCounts(latency, throughput, acceptLength)
            : ({ ok: false } as const);
        if (!counts.ok) {
          means.add(reportedTauMetricKey(dataset), step, acceptLength);
          continue;
        }
        const base = {
          checkpoint,
          dataset,
          draft: { ...draft },
          ...(throughput !== null ? { outputTokPerS: throughput } : {}),
        };
        const byCategory = categoryResults(m.categorical_performance, counts, latency as number);
        if (byCategory.ok) {
          for (const c of byCategory.categories) {
            const category = `${dataset}/${c.name}`.slice(0, 200);
            results.push({
              key: resultKey(r, k, benchmark, c.name),
              ...base,
              promptId: category,
              category,
              ...fromSpecVerifyCount({ completionTokens: c.tokens, specVerifyCt: c.verifySteps }),
              ...(c.outputTokPerS !== null ? { outputTokPerS: c.outputTokPerS } : {}),
            });
          }
        } else {
          results.push({
            key: resultKey(r, k, benchmark),
            ...base,
            promptId: dataset,
            category: dataset,
            ...fromSpecVerifyCount({
              completionTokens: counts.tokens,
              specVerifyCt: counts.verifySteps,
            }),
          });
          for (const [name, value] of byCategory.reported)
            means.add(`${reportedTauMetricKey(dataset)}/${name}`, step, value);
        }
      }
    }
    datasets[benchmark] = {
      ...(typeof rows[0]?.num_samples === "number" ? { numSamples: rows[0].num_samples } : {}),
      ...(questions.length > 0 ? { numQuestions: questions[0] } : {}),
    };
  }

  const config: JsonObject = {
    benchmarkTool: "SpecForge bench_eagle3",
    ...(model !== null ? { draftModel: model } : {}),
    datasets,
    draftConfigs: configs,
  };
  return {
    parsed: {
      path,
      contentHash: sha256Hex(text),
      format: "specforge-bench-eagle3",
      identity: sha256Hex(text),
      kind: "eval",
      results,
      metrics: means.points(),
      config,
      defaultName: baseName(path),
    },
    problems,
  };
}

interface CategoryCounts {
  name: string;
  tokens: number;
  verifySteps: number;
  outputTokPerS: number | null;
}

/**
 * Per-category counts of `categorical_performance` when every category recovers exactly and the
 * categories add up to the total; otherwise the categories' reported accept lengths (> 1) only.
 */
function categoryResults(
  value: unknown,
  total: { tokens: number; verifySteps: number },
  latencyS: number,
): { ok: true; categories: CategoryCounts[] } | { ok: false; reported: [string, number][] } {
  if (!isPlainObject(value)) return { ok: false, reported: [] };
  const categories: CategoryCounts[] = [];
  const reported: [string, number][] = [];
  let complete = Object.keys(value).length > 0;
  for (const [name, m] of Object.entries(value)) {
    if (!isPlainObject(m)) {
      complete = false;
      continue;
    }
    const al = finite(m.accept_length);
    if (al !== null && al > 1) reported.push([name, al]);
    const thr = finite(m.output_throughput);
    // The writer gives every category the whole run's latency (its throughput is a share).
    const counts =
      al !== null && al > 1 && thr !== null
        ? recoverSpecForgeCounts(finite(m.latency) ?? latencyS, thr, al)
        : null;
    if (!counts?.ok) {
      complete = false;
      continue;
    }
    categories.push({
      name,
      tokens: counts.tokens,
      verifySteps: counts.verifySteps,
      outputTokPerS: thr,
    });
  }
  const tokens = categories.reduce((s, c) => s + c.tokens, 0);
  const steps = categories.reduce((s, c) => s + c.verifySteps, 0);
  if (complete && tokens === total.tokens && steps === total.verifySteps)
    return { ok: true, categories };
  return { ok: false, reported };
}

/** True when `text` is a bench_eagle3 results document (content only, never the file name). */
function recognises(text: string): boolean {
  return isSpecForgeResults(readJsonDocument(text));
}

/** The SpecForge bench_eagle3 results format module (format id `"specforge-bench-eagle3"`). */
export const specforgeBenchEagle3: EvalFormatModule = {
  format: "specforge-bench-eagle3",
  tool: "SpecForge bench_eagle3",
  recognises,
  parse,
};
