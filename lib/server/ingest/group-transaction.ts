import type pg from "pg";

import type { GroupTrace } from "@/lib/server/ingest-trace";

import { applyPart } from "./apply-part";
import type { FrameOutcome, GroupPart } from "./frame-outcome";
import { admit, requiredRunKey, type PartState } from "./group-admission";
import { GroupWrites } from "./group-writes";
import { claimFrameIds, loadRuns, releaseFrameIds } from "./writers/runs";

/*
 * What one group transaction does (apply.ts opens, retries and commits it): admission of every
 * part (ownership, unknown runs), the group's frame-id claims, then each part's frames in order,
 * with the writes many frames share buffered and written set-based for the whole group.
 */

/**
 * Applies the group's parts inside the caller's transaction (see applyGroup for the contract);
 * adds the live topics they changed to `topics` (published after COMMIT). Returns each part's
 * outcomes, one per frame in order.
 * @throws whatever PostgreSQL raises; the caller rolls back (and isolates the failing frame).
 */
export async function applyInTransaction(
  client: pg.PoolClient,
  parts: GroupPart[],
  at: Date,
  topics: Set<string>,
  trace?: GroupTrace,
): Promise<FrameOutcome[][]> {
  // 1. Frames that reference runs must name a run that exists or is started earlier in the same
  //    part, and the part's token must be allowed to change what they target (ownership.ts).
  //    The runs of the whole group are looked up and locked in one statement (in id order).
  const referenced = new Set<string>();
  for (const { frames } of parts) {
    for (const f of frames) {
      const key = f.type === "run.start" ? f.run : requiredRunKey(f);
      if (key !== undefined) referenced.add(key);
    }
  }
  const stored = await loadRuns(client, [...referenced]);
  trace?.mark("loadRuns");
  const states: PartState[] = [];
  for (const part of parts) states.push(await admit(client, part, stored));
  trace?.mark("admit");

  // 2. Claim the frame ids of every part in one statement; those already claimed were committed
  //    before: ack without applying. (A (host, id) asked twice in the group goes to the first.)
  const claimKey = (hostId: number, frameId: string) => `${hostId}\u0000${frameId}`;
  const asked = states.flatMap((s) =>
    s.accepted.map((i) => ({ hostId: s.part.principal.hostId, frameId: s.part.frames[i]!.id })),
  );
  const claimed = new Set(
    (await claimFrameIds(client, asked)).map((c) => claimKey(c.hostId, c.frameId)),
  );
  trace?.mark("claim");

  // 3. Apply each part's frames in order; writes that several frames share are buffered across
  //    the whole group and written once (GroupWrites).
  const writes = new GroupWrites(client, at, topics, trace);
  for (const s of states) {
    const toApply: number[] = [];
    for (const i of s.accepted) {
      const f = s.part.frames[i]!;
      if (claimed.delete(claimKey(s.part.principal.hostId, f.id))) toApply.push(i);
      else s.outcomes.set(i, { id: f.id, ok: true, duplicate: true });
    }
    await applyPart(writes, s, toApply);
  }
  trace?.mark("parts");
  await writes.finish();
  for (const s of states) await releaseFrameIds(client, s.part.principal.hostId, s.released);
  trace?.mark("release");
  return states.map((s) => s.part.frames.map((_, i) => s.outcomes.get(i)!));
}
