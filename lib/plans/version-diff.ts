import { diffArrays, diffLines } from "diff";

import { bodyLines } from "@/lib/plans/body-lines";
import type {
  PlanBodyDiffLine,
  PlanItemView,
  PlanVersionItemChange,
  PlanVersionItemsDiff,
} from "@/lib/view-models/plans";

/**
 * What changed between a plan and the version it supersedes, computed with the `diff` library
 * (Myers' algorithm): a line diff of the markdown body and a diff of the ordered items. Pure; the
 * plan page and the inbox show the result.
 */

/** Bodies whose line diff would take more edits than this are reported as too different to diff. */
export const MAX_BODY_EDITS = 20_000;

/**
 * Line diff of two markdown bodies (null = the version had none), in reading order: unchanged,
 * removed (old line number) and added (new line number) lines. Line ends (`\n`, `\r\n`) and a
 * missing final newline are not differences. Returns null when the bodies differ by more than
 * {@link MAX_BODY_EDITS} lines.
 */
export function diffPlanBodies(
  previous: string | null,
  current: string | null,
): PlanBodyDiffLine[] | null {
  const norm = (t: string | null) => (t === null || t === "" ? "" : bodyLines(t).join("\n") + "\n");
  const changes = diffLines(norm(previous), norm(current), { maxEditLength: MAX_BODY_EDITS });
  if (!changes) return null;
  const out: PlanBodyDiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const c of changes) {
    for (const text of bodyLines(c.value)) {
      if (c.added) out.push({ kind: "added", text, oldLine: null, newLine: newLine++ });
      else if (c.removed) out.push({ kind: "removed", text, oldLine: oldLine++, newLine: null });
      else out.push({ kind: "same", text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return out;
}

/** Item text compared with runs of whitespace collapsed. */
function sameText(a: PlanItemView, b: PlanItemView): boolean {
  return a.content.trim().replace(/\s+/g, " ") === b.content.trim().replace(/\s+/g, " ");
}

/**
 * The current items against the previous version's, in the current order: an item with the same
 * text is `same` (or `changed` when only its priority differs); within one run of removed and
 * added items, the k-th removed and the k-th added pair up as one `changed` item; what is left is
 * `removed` (placed where it stood) or `added`.
 */
export function diffPlanVersionItems(
  previous: readonly PlanItemView[],
  current: readonly PlanItemView[],
): PlanVersionItemsDiff {
  const changes = diffArrays([...previous], [...current], { comparator: sameText });
  const out: PlanVersionItemChange[] = [];
  let oldIdx = 0;
  let newIdx = 0;
  let removedRun: PlanItemView[] = [];
  let addedRun: PlanItemView[] = [];
  const flush = () => {
    const paired = Math.min(removedRun.length, addedRun.length);
    for (let k = 0; k < paired; k++) {
      const from = removedRun[k] as PlanItemView;
      const to = addedRun[k] as PlanItemView;
      out.push({ kind: "changed", item: to, from });
    }
    for (const from of removedRun.slice(paired)) out.push({ kind: "removed", item: from, from });
    for (const to of addedRun.slice(paired)) out.push({ kind: "added", item: to, from: null });
    removedRun = [];
    addedRun = [];
  };
  for (const c of changes) {
    if (c.removed) {
      removedRun.push(...previous.slice(oldIdx, oldIdx + c.count));
      oldIdx += c.count;
    } else if (c.added) {
      addedRun.push(...current.slice(newIdx, newIdx + c.count));
      newIdx += c.count;
    } else {
      flush();
      for (let k = 0; k < c.count; k++) {
        const from = previous[oldIdx++] as PlanItemView;
        const to = current[newIdx++] as PlanItemView;
        out.push(
          from.priority === to.priority
            ? { kind: "same", item: to, from }
            : { kind: "changed", item: to, from },
        );
      }
    }
  }
  flush();
  const count = (kind: PlanVersionItemChange["kind"]) => out.filter((c) => c.kind === kind).length;
  return {
    changes: out,
    added: count("added"),
    removed: count("removed"),
    changed: count("changed"),
  };
}
