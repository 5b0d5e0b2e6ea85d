import type { ClientFrameInput } from "../protocol/frames";
import { sha256Hex } from "./benchmark-common";

/**
 * Re-labelling on re-import. Import frames have content-derived ids, so importing the same file
 * again is a no-op (the server acks every frame as a duplicate). That also means that going back
 * to an earlier label — import with `--name A`, then `--name B`, then `--name A` again, or
 * `--scenario long-context` → none → `long-context` — would send frames whose ids the server
 * already claimed, and nothing would change. So before sending, the CLI reads what the server holds
 * for the run ({@link StoredRunLabels}) and, where the file's labels differ, gives the frames that
 * carry the change a fresh id suffix derived from the stored state (`~<8 hex>`): the stored state
 * changes with every applied frame (`lastPushAt`), so each re-label gets ids of its own, while a
 * re-import that changes nothing keeps the plain ids and stays a no-op. (Right after a re-label the
 * plain ids of the new labels were never sent, so the next identical import applies its frames once
 * more, with the same values, before it becomes a no-op.)
 *
 * A person's edit of the name wins (docs/architecture.md "A person's edit outlives a worker's
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

/** The frames to send and what they change: `changes` for the summary, `kept` for a person's edit that wins. */
export interface RelabelPlan {
  frames: ClientFrameInput[];
  changes: string[];
  kept: string[];
}

/**
 * Compares a run's import frames with what the server holds and re-ids the frames that carry a
 * change (see the module comment): `run.start` when the name differs and nobody edited it, then
 * the `run.end` after it (re-applying `run.start` marks the run running again); each
 * `run.benchmark` frame holding a point whose scenario differs. `stored` null (a new run) returns
 * the frames unchanged and no changes. Pure.
 */
export function planRelabel(frames: readonly ClientFrameInput[], stored: StoredRunLabels | null): RelabelPlan {
  if (stored === null) return { frames: [...frames], changes: [], kept: [] };
  const changes: string[] = [];
  const kept: string[] = [];
  const salt = sha256Hex(`${stored.lastPushAt}\n${stored.name}\n${[...stored.pointScenarios].sort().join("\n")}`).slice(0, 8);
  const fresh = (id: string) => `${id}~${salt}`;

  const start = frames.find((f): f is Extract<ClientFrameInput, { type: "run.start" }> => f.type === "run.start");
  let restart = false;
  if (start && start.name !== stored.name) {
    if (stored.editedAt !== null) kept.push(`name "${stored.name}" kept (edited${stored.editedBy ? ` by ${stored.editedBy}` : ""} on the web; a person's edit wins over "${start.name}")`);
    else {
      restart = true;
      changes.push(`name "${stored.name}" → "${start.name}"`);
    }
  }

  const moved = new Map<string, number>();
  const out = frames.map((f): ClientFrameInput => {
    if (f.type === "run.start" && restart) return { ...f, id: fresh(f.id) };
    if (f.type === "run.end" && restart) return { ...f, id: fresh(f.id) };
    if (f.type !== "run.benchmark") return f;
    let changed = false;
    for (const p of f.points) {
      const before = stored.pointScenarios.get(p.key);
      const after = p.scenario ?? "throughput";
      if (before === undefined || before === after) continue;
      changed = true;
      const label = `${before} → ${after}`;
      moved.set(label, (moved.get(label) ?? 0) + 1);
    }
    return changed ? { ...f, id: fresh(f.id) } : f;
  });
  for (const [label, n] of moved) changes.push(`${n} point${n === 1 ? "" : "s"} ${label}`);
  return { frames: out, changes, kept };
}
