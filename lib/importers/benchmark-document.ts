import type { ParsedFile } from "./benchmark-run";
import type { BenchmarkFormat } from "./source-common";
import type { ImportProblem } from "./source-text";

/**
 * Benchmark formats whose file is ONE JSON document (GenAI-Perf `profile_export_genai_perf.json`,
 * GuideLLM `benchmarks.json`), as opposed to the JSON-lines formats read row by row
 * (`classifyRow`). A document module recognises a parsed document by key presence and turns it into
 * the same `ParsedFile` the row formats produce, so `buildRun` assembles the run (keys, frame ids,
 * frame splitting) exactly as for SGLang and vLLM files.
 */

/** One document-shaped benchmark format. */
export interface BenchmarkDocumentModule {
  format: BenchmarkFormat;
  /** Human name of the writing tool, for messages. */
  tool: string;
  /** True when a parsed JSON document is this format's output (key presence only). */
  recognises(doc: unknown): boolean;
  /** Maps a recognised document to points; never throws on odd values (they become null or problems). */
  parse(
    path: string,
    text: string,
    doc: Record<string, unknown>,
  ): { parsed: ParsedFile; problems: ImportProblem[] };
  /**
   * When true, all files of this format in one import make ONE run even without a name (GenAI-Perf
   * writes one file per concurrency level); the run is then named by {@link defaultRunName}.
   */
  oneRunPerImport: boolean;
  /** Run name when none is given, from the paths of the run's files (canonical order). */
  defaultRunName(paths: readonly string[]): string;
}
