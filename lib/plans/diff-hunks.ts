import type { PlanBodyDiffLine } from "@/lib/view-models/plans";

/** A piece of a body diff as shown: lines, or a run of unchanged lines folded away. */
export type DiffSegment =
  | { kind: "lines"; lines: PlanBodyDiffLine[] }
  | { kind: "folded"; count: number; lines: PlanBodyDiffLine[] };

/**
 * Folds runs of unchanged lines that lie more than `context` lines away from any change, so a
 * long plan shows only what changed and its surroundings. Folds shorter than 2 lines are not
 * worth a marker and stay shown.
 */
export function foldUnchanged(lines: readonly PlanBodyDiffLine[], context = 3): DiffSegment[] {
  const near = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.kind === "same") return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++)
      near[k] = true;
  });
  const out: DiffSegment[] = [];
  let i = 0;
  while (i < lines.length) {
    let j = i + 1;
    while (j < lines.length && near[j] === near[i]) j++;
    const run = lines.slice(i, j);
    const last = out.at(-1);
    if (!near[i] && run.length >= 2) out.push({ kind: "folded", count: run.length, lines: run });
    else if (last?.kind === "lines") last.lines.push(...run);
    else out.push({ kind: "lines", lines: run });
    i = j;
  }
  return out;
}
