import type { ClientFrameInput } from "../protocol/frames";
import { sha256Hex } from "./source-text";

/**
 * Re-labelling on re-import. Import frames have content-derived ids, so importing the same file
 * again is a no-op (the server acks every frame as a duplicate). That also means that going back
 * to an earlier label — import with `--name A`, then `--name B`, then `--name A` again, or
 * `--scenario long-context` → none → `long-context` — would send frames whose ids the server
 * already claimed, and nothing would change. So before sending, the CLI reads what the server holds
 * for the run ({@link StoredRunLabels}) and, where the file's labels differ, sends the frames as
 * usual and then sends again, with a fresh id suffix derived from the stored state (`~<8 hex>`),
 * the frames carrying the change that the server acked as duplicates: the stored state changes
 * with every applied frame (`lastPushAt`), so each re-label gets ids of its own, while a re-import
 * that changes nothing only sends plain ids and stays a no-op.
 *
 * A person's edit of the name wins (docs/decisions.md "A person's edit outlives a worker's
 * re-send"): a run whose name was edited on the web keeps it, and the change is reported as kept.
 * Point scenarios and a never-edited name follow the file.
 */

/** What the server holds for an imported run: its labels, and when it last received a frame. */
export interface StoredRunLabels {
  name: string;
  /** When a person last edited name, tags or notes (ISO), and who; null when never. */
  editedAt: string | null;
  editedBy: string | null;
  /** ISO time of the last applied frame; changes whenever anything is applied to the run. */
  lastPushAt: string;
  /** Scenario of each stored benchmark point, by point key. */
  pointScenarios: ReadonlyMap<string, string>;
}

/**
 * What a re-import changes: `changes` for the summary, `kept` for a person's edit that wins, and
 * `carriers`: the ids of the frames that carry a change (and of the `run.end` that must follow a
 * re-applied `run.start`), with the fresh id each gets if the server already had its plain id.
 */
export interface RelabelPlan {
  changes: string[];
  kept: string[];
  carriers: ReadonlyMap<string, string>;
}

/**
 * Compares a run's import frames with what the server holds (see the module comment): the name
 * changes when it differs and nobody edited it (then `run.start` and the `run.end` after it carry
 * the change: re-applying `run.start` marks the run running again); each `run.benchmark` frame
 * holding a point whose scenario differs carries that change. `stored` null (a new run) changes
 * nothing. Pure.
 */
export function planRelabel(
  frames: readonly ClientFrameInput[],
  stored: StoredRunLabels | null,
): RelabelPlan {
  const carriers = new Map<string, string>();
  if (stored === null) return { changes: [], kept: [], carriers };
  const changes: string[] = [];
  const kept: string[] = [];
  const salt = sha256Hex(
    `${stored.lastPushAt}\n${stored.name}\n${[...stored.pointScenarios].sort().join("\n")}`,
  ).slice(0, 8);
  const carry = (id: string) => carriers.set(id, `${id}~${salt}`);

  const start = frames.find(
    (f): f is Extract<ClientFrameInput, { type: "run.start" }> => f.type === "run.start",
  );
  if (start && start.name !== stored.name) {
    if (stored.editedAt !== null)
      kept.push(
        `name "${stored.name}" kept (edited${stored.editedBy ? ` by ${stored.editedBy}` : ""} on the web; a person's edit wins over "${start.name}")`,
      );
    else {
      changes.push(`name "${stored.name}" → "${start.name}"`);
      for (const f of frames) if (f.type === "run.start" || f.type === "run.end") carry(f.id);
    }
  }

  const moved = new Map<string, number>();
  for (const f of frames) {
    if (f.type !== "run.benchmark") continue;
    for (const p of f.points) {
      const before = stored.pointScenarios.get(p.key);
      const after = p.scenario ?? "throughput";
      if (before === undefined || before === after) continue;
      carry(f.id);
      const label = `${before} → ${after}`;
      moved.set(label, (moved.get(label) ?? 0) + 1);
    }
  }
  for (const [label, n] of moved) changes.push(`${n} point${n === 1 ? "" : "s"} ${label}`);
  return { changes, kept, carriers };
}

/**
 * The frames to send again after the first send: those carrying a change that the server acked
 * as duplicates (it had applied their plain id before, for an earlier label), under their fresh
 * id, in the original order; a re-sent `run.start` brings its `run.end` along. Sending the plain
 * ids first means the next identical import finds every frame already claimed (a no-op).
 */
export function relabelResend(
  frames: readonly ClientFrameInput[],
  plan: RelabelPlan,
  duplicateIds: ReadonlySet<string>,
): ClientFrameInput[] {
  const startAgain = frames.some(
    (f) => f.type === "run.start" && plan.carriers.has(f.id) && duplicateIds.has(f.id),
  );
  return frames
    .filter(
      (f) =>
        plan.carriers.has(f.id) && (duplicateIds.has(f.id) || (startAgain && f.type === "run.end")),
    )
    .map((f) => ({ ...f, id: plan.carriers.get(f.id) as string }));
}
