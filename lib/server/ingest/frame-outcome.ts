import type { IngestFrameResult } from "@/lib/api/ingest";
import type { ClientFrame } from "@/lib/protocol";
import type { TokenPrincipal } from "@/lib/server/repositories/tokens";

/** Shapes of the ingest transaction shared by apply.ts (which re-exports them) and group-transaction.ts, kept apart so neither imports the other. */

/** Result of one frame: committed (possibly earlier: `duplicate`) or rejected with a code. */
export type FrameOutcome = IngestFrameResult;

/** Clock, injectable for tests. */
export type Now = () => Date;

/** One submitter's batch within a group: its frames (validated, in arrival order), applied as `principal`. */
export interface GroupPart {
  principal: TokenPrincipal;
  frames: ClientFrame[];
}
