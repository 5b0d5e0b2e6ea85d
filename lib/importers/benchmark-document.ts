import { parseLenientJson } from "../protocol/json";
import { iterateLines, type BenchmarkFormat, type ImportProblem } from "./benchmark-common";
import type { ParsedFile } from "./benchmark-run";

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

/**
 * The JSON document of a file, if it is one: the first non-blank line when it parses on its own (a
 * document written without indentation), else the whole text when it starts with "{" and parses.
 * Undefined otherwise (JSON lines whose first line is a row are returned as that row, which no
 * document module recognises). Never throws; a BOM is ignored.
 */
export function readJsonDocument(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const { text: line } of iterateLines(body)) {
    if (!/\S/.test(line)) continue;
    try {
      return parseLenientJson(line);
    } catch {
      break;
    }
  }
  if (!body.trimStart().startsWith("{")) return undefined;
  try {
    return parseLenientJson(body);
  } catch {
    return undefined;
  }
}
