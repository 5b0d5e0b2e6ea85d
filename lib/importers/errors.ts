/**
 * Errors of the file importers (shared by every import family; re-exported by ./index).
 */

/** What the benchmark importer looks for, as said in an {@link UnknownFormatError}. */
export const BENCHMARK_FILES =
  "benchmark result file (expected SGLang bench_serving --output-file JSONL or vLLM bench serve --save-result JSON/JSONL, GenAI-Perf profile_export_genai_perf.json or GuideLLM benchmarks.json)";

/**
 * A file or option that cannot be imported at all. `file` names the input file (null for option
 * errors); the message already includes it.
 */
export class BenchmarkImportError extends Error {
  readonly file: string | null;
  constructor(file: string | null, message: string) {
    super(message);
    this.name = "BenchmarkImportError";
    this.file = file;
  }
}

/**
 * A file whose content matches no known format (or holds no result at all). `expected` describes
 * what was looked for (default: the benchmark formats).
 */
export class UnknownFormatError extends BenchmarkImportError {
  constructor(file: string, detail: string, expected: string = BENCHMARK_FILES) {
    super(file, `${file}: not a recognised ${expected}: ${detail}`);
    this.name = "UnknownFormatError";
  }
}
