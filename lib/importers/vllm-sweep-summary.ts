import { parseLenientJson, stringifyJson } from "../protocol/json";
import {
  isPlainObject,
  topLevelArrayElementLines,
  type ImportProblem,
  type JsonObject,
  type SourceRecord,
} from "./source-text";
import { setOwn } from "./source-values";

/**
 * `vllm bench sweep serve` result files: `<experiment>/SERVE-…-BENCH-…/summary.json`, one per
 * combination of serve and bench parameters.
 *
 * Writer: vllm-project/vllm `vllm/benchmarks/sweep/serve.py` (`run_comb`, read at commit 0031557f):
 * `json.dump(comb_data, f, indent=4)` of a JSON **array**, one element per measured run of the
 * combination. Each element is the `vllm bench serve --save-result` object of that run, to which
 * `_update_run_data` added `run_number` (0-based repeat, -1 for a warm-up) and then the combination's
 * serve overrides (`max_num_seqs`, `max_num_batched_tokens`, …) and bench overrides (`max_concurrency`,
 * `request_rate`, …) with `dict.update`. So the keys written after `run_number` are exactly the
 * swept parameters that the result did not already have (bench overrides of existing result keys
 * such as `max_concurrency` overwrite them in place and are read as the point's own fields);
 * `_benchmark_name` names a combination given as a dict (kept in `raw`, not a parameter).
 *
 * Each element is read as a vLLM bench serve result row (vllm-bench-serve.ts maps it; its swept
 * parameters become the run-config fact `sweep`), on the line where the element starts.
 */

/**
 * The records of a file that is ONE JSON array of objects (a sweep `summary.json`): each element
 * with the 1-based line where it starts and its canonical JSON text (hashed into the point key).
 * Elements that are not objects are problems. Null when the text is not a JSON array document
 * (JSON lines, one object, not JSON), so callers fall back to line reading. Never throws.
 */
export function readJsonArrayRecords(
  file: string,
  text: string,
): { records: SourceRecord[]; problems: ImportProblem[] } | null {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!body.trimStart().startsWith("[")) return null;
  let doc: unknown;
  try {
    doc = parseLenientJson(body);
  } catch {
    return null;
  }
  if (!Array.isArray(doc)) return null;
  const lines = topLevelArrayElementLines(body, null);
  const records: SourceRecord[] = [];
  const problems: ImportProblem[] = [];
  doc.forEach((element, i) => {
    const line = lines.length === doc.length ? (lines[i] as number) : 1;
    if (isPlainObject(element)) records.push({ line, text: stringifyJson(element), row: element });
    else
      problems.push({
        file,
        line,
        message: `element ${i} of the JSON array is not an object (one benchmark result per element); skipped`,
      });
  });
  return { records, problems };
}

/**
 * The swept parameters of a `vllm bench sweep` result element: every key written after
 * `run_number`, except `_benchmark_name`, with its value (`{max_num_seqs: 64}`). Null for a row
 * without `run_number` (a plain `vllm bench serve` result) or with nothing after it.
 */
export function sweepParameters(row: JsonObject): JsonObject | null {
  if (!Object.hasOwn(row, "run_number")) return null;
  const out: JsonObject = {};
  let after = false;
  for (const [key, value] of Object.entries(row)) {
    if (key === "run_number") after = true;
    else if (after && key !== "_benchmark_name") setOwn(out, key, value);
  }
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * Default run name of a sweep `summary.json`: its combination folder's name
 * (`SERVE--max_num_seqs=64-BENCH--max_concurrency=32`); null for any other file name or a path
 * without a folder.
 */
export function sweepSummaryRunName(path: string): string | null {
  const parts = path.split(/[\\/]/).filter((p) => p !== "" && p !== "." && p !== "..");
  if (parts.length < 2 || parts[parts.length - 1] !== "summary.json") return null;
  return parts[parts.length - 2] as string;
}
