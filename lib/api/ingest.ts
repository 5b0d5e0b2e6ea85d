import type { ErrorCode } from "@/lib/protocol";

import { defineRoute } from "./contract";

/**
 * Contract of `POST /api/ingest`: a JSON array of protocol frames (or one frame) with a worker
 * token. The frames' schemas are the wire protocol's (lib/protocol, docs/protocol.md): each is
 * validated on its own, by the same function as on /ws/ingest, so the route has no body schema.
 */
export const ingestRoute = defineRoute({ route: "POST /api/ingest" });

/** Most frames one `POST /api/ingest` takes (more: 413 `batch_too_large`). */
export const MAX_INGEST_FRAMES = 10_000;

/** Result of one frame: committed (possibly earlier: `duplicate`) or rejected with a code. */
export type IngestFrameResult =
  | { id: string; ok: true; duplicate: boolean }
  | { id: string; ok: false; code: ErrorCode; message: string };

/** Answer of {@link ingestRoute}: one result per frame in input order, and the counts. */
export interface IngestResponse {
  results: IngestFrameResult[];
  accepted: number;
  rejected: number;
}
