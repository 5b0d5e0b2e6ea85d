/**
 * Annotations of a run's step charts: its checkpoints (at their step), its warnings and server
 * alerts (run events of level warn/error or with a code) and the decisions on its plans. Events and
 * decisions carry a time, not a step: they are placed at the step the run had reached then,
 * interpolated between known (time, step) anchors (the run's start, each checkpoint, its last push),
 * and left off when their time lies outside those anchors.
 */

/** What an annotation marks. */
export type AnnotationKind = "checkpoint" | "event" | "plan";

/** One annotation before placement. */
export interface RunAnnotation {
  kind: AnnotationKind;
  /** Short text for the line's label and tooltip ("checkpoint 400", "plan approved: …"). */
  label: string;
  /** Epoch ms it happened. */
  tMs: number;
  /** Step, when known exactly (checkpoints). */
  step: number | null;
  /** "failed" for errors and rejections, "warn" for warnings and changes requested, else "info". */
  tone: "info" | "warn" | "failed";
}

/** An annotation placed on a step axis. */
export type PlacedAnnotation = RunAnnotation & { x: number };

/** A known (time, step) pair of a run. */
export interface StepAnchor {
  tMs: number;
  step: number;
}

interface Inputs {
  artifacts: ReadonlyArray<{ kind: string; step: number | string | null; ts: string; uri: string }>;
  events: ReadonlyArray<{ ts: string; level: string; message: string; code: string | null }>;
  plans: ReadonlyArray<{
    title: string;
    state: string;
    decidedAt: string | null;
    decidedBy: string | null;
  }>;
}

const PLAN_TONE: Record<string, RunAnnotation["tone"]> = {
  approved: "info",
  changes_requested: "warn",
  rejected: "failed",
};

/** The annotations of a run from its artifacts (checkpoints only), events (warn/error or coded) and decided plans. */
export function runAnnotations({ artifacts, events, plans }: Inputs): RunAnnotation[] {
  const out: RunAnnotation[] = [];
  for (const a of artifacts) {
    const step = a.step === null ? null : Number(a.step);
    if (a.kind !== "checkpoint" || step === null || !Number.isFinite(step)) continue;
    out.push({
      kind: "checkpoint",
      label: `checkpoint ${step}`,
      tMs: Date.parse(a.ts),
      step,
      tone: "info",
    });
  }
  for (const e of events) {
    if (e.level !== "warn" && e.level !== "error" && e.code === null) continue;
    out.push({
      kind: "event",
      label: e.message,
      tMs: Date.parse(e.ts),
      step: null,
      tone: e.level === "error" ? "failed" : "warn",
    });
  }
  for (const p of plans) {
    if (!p.decidedAt || !(p.state in PLAN_TONE)) continue;
    out.push({
      kind: "plan",
      label: `plan ${p.state.replace("_", " ")}: ${p.title}${p.decidedBy ? ` (${p.decidedBy})` : ""}`,
      tMs: Date.parse(p.decidedAt),
      step: null,
      tone: PLAN_TONE[p.state]!,
    });
  }
  return out.filter((a) => Number.isFinite(a.tMs)).sort((a, b) => a.tMs - b.tMs);
}

/** Anchors sorted by time with steps that never go back (a later anchor with a lower step is dropped). */
export function monotonicAnchors(anchors: readonly StepAnchor[]): StepAnchor[] {
  const sorted = anchors
    .filter((a) => Number.isFinite(a.tMs) && Number.isFinite(a.step))
    .sort((a, b) => a.tMs - b.tMs || a.step - b.step);
  const out: StepAnchor[] = [];
  for (const a of sorted) if (out.length === 0 || a.step >= out[out.length - 1]!.step) out.push(a);
  return out;
}

/** The step at time `tMs` by linear interpolation between anchors; null outside them (or with fewer than two). */
export function stepAtTime(anchors: readonly StepAnchor[], tMs: number): number | null {
  if (anchors.length < 2 || tMs < anchors[0]!.tMs || tMs > anchors[anchors.length - 1]!.tMs)
    return null;
  for (let i = 1; i < anchors.length; i++) {
    const a = anchors[i - 1]!;
    const b = anchors[i]!;
    if (tMs <= b.tMs)
      return b.tMs === a.tMs
        ? b.step
        : a.step + ((b.step - a.step) * (tMs - a.tMs)) / (b.tMs - a.tMs);
  }
  return null;
}

/**
 * Places annotations on a step axis: checkpoints at their step, the rest at the interpolated step
 * of their time (see {@link stepAtTime}; `anchors` should include the run's start and last push).
 * Those that cannot be placed are left off.
 */
export function placeAnnotations(
  annotations: readonly RunAnnotation[],
  anchors: readonly StepAnchor[],
): PlacedAnnotation[] {
  const sorted = monotonicAnchors([
    ...anchors,
    ...annotations.filter((a) => a.step !== null).map((a) => ({ tMs: a.tMs, step: a.step! })),
  ]);
  const out: PlacedAnnotation[] = [];
  for (const a of annotations) {
    const x = a.step ?? stepAtTime(sorted, a.tMs);
    if (x !== null) out.push({ ...a, x: Math.round(x) });
  }
  return out;
}
