import type pg from "pg";

import type { ClientFrame } from "@/lib/protocol";

import type { FrameOutcome, GroupPart } from "./frame-outcome";
import { loadOwnershipCheck } from "./ownership";
import type { RunRef, StoredRun } from "./writers/runs";

/** Frame types that refer to a run by its client key. */
const RUN_FRAMES = new Set<ClientFrame["type"]>([
  "run.benchmark",
  "run.progress",
  "run.metrics",
  "run.artifact",
  "run.event",
  "run.output",
  "run.end",
  "run.eval",
]);

/** A client frame that names a run by its client key. */
export type RunScopedFrame = Extract<ClientFrame, { run: string }>;

/** Whether `f` is one of RUN_FRAMES (it names a run that must exist). */
export function refersToRun(f: ClientFrame): f is RunScopedFrame {
  return RUN_FRAMES.has(f.type);
}

/** The run key a frame needs to exist (run.start creates its run; plan.propose may name one). */
export function requiredRunKey(f: ClientFrame): string | undefined {
  if (refersToRun(f)) return f.run;
  if (f.type === "plan.propose") return f.run;
  return undefined;
}

/** What one part of a group carries from admission (ownership, unknown runs) to its writes. */
export interface PartState {
  part: GroupPart;
  outcomes: Map<number, FrameOutcome>;
  /** Indexes of the frames that passed admission, in order; their ids are claimed next. */
  accepted: number[];
  /** The group's stored runs (shared by its parts, not copied: a group may hold 200 parts). */
  stored: ReadonlyMap<string, StoredRun>;
  /** Runs this part started itself (looked up before `stored`). */
  started: Map<string, RunRef>;
  /** Run keys another host created after the ownership check (a create race, see upsertRun). */
  lostRace: Map<string, StoredRun>;
  /** Claimed frame ids of frames then refused (deleted again before COMMIT: they may be resent). */
  released: string[];
}

/** Step 1 for one part: duplicates within the part, ownership (`forbidden`) and unknown runs. */
export async function admit(
  client: pg.PoolClient,
  part: GroupPart,
  stored: ReadonlyMap<string, StoredRun>,
): Promise<PartState> {
  const { principal, frames } = part;
  const state: PartState = {
    part,
    outcomes: new Map(),
    accepted: [],
    stored,
    started: new Map(),
    lostRace: new Map(),
    released: [],
  };
  const denied = await loadOwnershipCheck(client, principal, frames, stored);
  const startedInBatch = new Set<string>();
  const seenIds = new Set<string>();
  frames.forEach((f, i) => {
    if (seenIds.has(f.id)) {
      state.outcomes.set(i, { id: f.id, ok: true, duplicate: true });
      return;
    }
    seenIds.add(f.id);
    const forbidden = denied(f);
    if (forbidden) {
      state.outcomes.set(i, { id: f.id, ok: false, code: "forbidden", message: forbidden });
      return;
    }
    if (f.type === "run.start") startedInBatch.add(f.run);
    const runKey = requiredRunKey(f);
    if (runKey !== undefined && !stored.has(runKey) && !startedInBatch.has(runKey)) {
      state.outcomes.set(i, {
        id: f.id,
        ok: false,
        code: "unknown_run",
        message: `run '${runKey}' has not been started (send run.start first)`,
      });
      return;
    }
    state.accepted.push(i);
  });
  return state;
}
