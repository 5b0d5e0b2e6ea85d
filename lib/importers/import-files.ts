import { runStartFrame } from "../protocol/frames";
import { describeIssues } from "../protocol/validate";
import type { ImportFile, ImportProblem } from "./source-text";

/** Pieces shared by the importers' entry points (benchmark, training, eval): option checks, parsing distinct files. */

/** The run labels every run import takes (see each importer's options). */
export interface RunLabelOptions {
  name?: string;
  host?: string;
  tags?: string[];
}

/**
 * Validates run labels: `name` trimmed and cut to 300 chars (undefined when blank), `host` and
 * `tags` as `run.start` accepts them.
 * @throws the error `fail(message)` makes, naming the bad option.
 */
export function checkRunLabels(
  opts: RunLabelOptions,
  fail: (message: string) => Error,
): RunLabelOptions {
  const shape = runStartFrame.shape;
  const name = opts.name?.trim() ? opts.name.trim().slice(0, 300) : undefined;
  if (opts.host !== undefined) {
    const host = shape.host.safeParse(opts.host);
    if (!host.success)
      throw fail(`invalid host ${JSON.stringify(opts.host)}: ${describeIssues(host.error)}`);
  }
  if (opts.tags !== undefined) {
    const tags = shape.tags.safeParse(opts.tags);
    if (!tags.success) throw fail(`invalid tags: ${describeIssues(tags.error)}`);
  }
  return { name, host: opts.host, tags: opts.tags };
}

/**
 * A frame limit option (`what`, e.g. `maxFrameBytes`): `value`, or `fallback` when undefined.
 * @throws the error `fail(message)` makes when it is not an integer in `min..max`.
 */
export function checkFrameLimit(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  what: string,
  fail: (message: string) => Error,
): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max)
    throw fail(`${what} must be an integer in ${min}..${max}, got ${v}`);
  return v;
}

/**
 * Parses each file; a file whose content equals an earlier one's is imported once (the repeat is
 * a problem at line 0). Returns the parsed files in input order and every problem.
 */
export function parseDistinct<P extends { contentHash: string }>(
  files: readonly ImportFile[],
  parse: (file: ImportFile) => { parsed: P; problems: ImportProblem[] },
): { parsed: P[]; problems: ImportProblem[] } {
  const problems: ImportProblem[] = [];
  const parsed: P[] = [];
  const byHash = new Map<string, string>();
  for (const file of files) {
    const { parsed: p, problems: fileProblems } = parse(file);
    problems.push(...fileProblems);
    const firstPath = byHash.get(p.contentHash);
    if (firstPath !== undefined) {
      problems.push({
        file: file.path,
        line: 0,
        message: `same content as ${firstPath}; imported once`,
      });
      continue;
    }
    byHash.set(p.contentHash, file.path);
    parsed.push(p);
  }
  return { parsed, problems };
}
