import { bodyLines } from "./body-lines";
import { diffPlanBodies } from "./version-diff";

export { bodyLines };

/**
 * Where line comments written on earlier versions of a plan land on a later version. Each step
 * from one version to the next (the version that `supersedes` it) re-anchors a comment:
 * 1. its line is unchanged in the line diff of the two bodies → the same text's new line;
 * 2. else its line text (trimmed) still exists in the new body → the occurrence nearest to its
 *    old line number (the line moved or the diff paired it differently);
 * 3. else it is outdated: its line changed or vanished. An outdated comment stays outdated in every
 *    later version and keeps the text it was written on, so the reader sees what it was about.
 * Pure: no database.
 */

/** One version of a plan in its revision chain (oldest first). */
export interface ChainVersion {
  planId: number;
  body: string | null;
}

/** A comment as stored: the version it was written on, its line there and that line's text. */
export interface StoredAnchor {
  planId: number;
  line: number;
  lineText: string;
}

/** Where a comment lands on the last version: its 1-based line there, or null when outdated. */
export interface Anchored {
  line: number | null;
  outdated: boolean;
  /** 1-based version (in `chain`) the comment was written on. */
  writtenOnVersion: number;
}

/** Old line → new line for the lines the diff of two bodies keeps unchanged. */
function unchangedLineMap(from: string | null, to: string | null): Map<number, number> | null {
  const diff = diffPlanBodies(from, to);
  if (!diff) return null;
  const map = new Map<number, number>();
  for (const l of diff)
    if (l.kind === "same" && l.oldLine !== null && l.newLine !== null)
      map.set(l.oldLine, l.newLine);
  return map;
}

/** The 1-based line of `lines` whose trimmed text is `text`, nearest to `near`; null when none. */
function nearestLineWithText(lines: readonly string[], text: string, near: number): number | null {
  let best: number | null = null;
  lines.forEach((l, i) => {
    if (l.trim() !== text.trim()) return;
    if (best === null || Math.abs(i + 1 - near) < Math.abs(best - near)) best = i + 1;
  });
  return best;
}

/**
 * Re-anchors `comments` onto the last version of `chain` (oldest first), following the rules
 * above. A comment on a version not in `chain` is left out of the result (map by index of input).
 * @returns one entry per comment, in input order (undefined for a comment not on the chain).
 */
export function anchorComments(
  chain: readonly ChainVersion[],
  comments: readonly StoredAnchor[],
): Array<Anchored | undefined> {
  const index = new Map(chain.map((v, i) => [v.planId, i]));
  const steps = chain.slice(1).map((v, i) => ({
    map: unchangedLineMap(chain[i]?.body ?? null, v.body),
    lines: bodyLines(v.body),
  }));
  return comments.map((c) => {
    const at = index.get(c.planId);
    if (at === undefined) return undefined;
    let line: number | null = c.line;
    for (let k = at; k < steps.length && line !== null; k++) {
      const step = steps[k]!;
      line = step.map?.get(line) ?? nearestLineWithText(step.lines, c.lineText, line);
    }
    return { line, outdated: line === null, writtenOnVersion: at + 1 };
  });
}
