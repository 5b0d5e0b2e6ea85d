import type { ImportFile, ImportProblem } from "./benchmark-common";

/** Pieces shared by the importers' entry points (benchmark, training, eval). */

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
      problems.push({ file: file.path, line: 0, message: `same content as ${firstPath}; imported once` });
      continue;
    }
    byHash.set(p.contentHash, file.path);
    parsed.push(p);
  }
  return { parsed, problems };
}
