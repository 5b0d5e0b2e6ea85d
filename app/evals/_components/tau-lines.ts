import { draftSettingsLabel } from "@/components/evals/format";
import type { TauLineView, TauPointView } from "@/lib/view-models/evals";

/** A line's name: the run, plus its draft settings when the run has one line per setting. */
export function lineLabel(l: TauLineView): string {
  return l.splitByDraft ? `${l.run.name} · ${draftSettingsLabel(l.draft.settings)}` : l.run.name;
}

/** The line's latest point (server rule: highest step, else most recently scored). */
export function latestPoint(l: TauLineView): TauPointView | null {
  return l.points.find((p) => p.key === l.latestKey) ?? null;
}
