import { MAX_INGEST_FRAMES as MAX_FRAMES, type IngestResponse } from "@/lib/api/ingest";
import { JsonSyntaxError, MAX_FRAME_BYTES, parseWireJson } from "@/lib/protocol";
import { readBodyText } from "@/lib/server/body";
import { errorResponse, handle, json } from "@/lib/server/http";
import { authenticateWorker, ingestValues } from "@/lib/server/ingest/service";

/** Largest accepted batch body: 16 frames' worth of the per-frame limit. */
const MAX_BODY_BYTES = 16 * MAX_FRAME_BYTES;

/**
 * POST /api/ingest: a JSON array of protocol frames (or one frame) with a worker token.
 * Answers 200 with `{ results: [{id, ok, duplicate?} | {id, ok:false, code, message}], accepted,
 * rejected }` in input order; valid frames are committed even when others in the batch are bad
 * (a frame nested too deep is rejected alone with `too_deep`). A body over 16 MiB is cut while it
 * is read (chunked too): 413 `batch_too_large`. 503 `database_unavailable` when the database is
 * down (nothing committed: resend the batch).
 */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const principal = await authenticateWorker(request.headers.get("authorization"));
    const text = await readBodyText(request, MAX_BODY_BYTES, "batch_too_large");
    let body: unknown;
    let truncated: boolean;
    try {
      ({ value: body, truncated } = parseWireJson(text));
    } catch (err) {
      if (err instanceof JsonSyntaxError)
        return errorResponse(400, "invalid_json", `body is not JSON: ${err.message}`);
      throw err;
    }
    const values = Array.isArray(body) ? body : [body];
    if (values.length > MAX_FRAMES)
      return errorResponse(413, "batch_too_large", `at most ${MAX_FRAMES} frames per request`);
    const results = await ingestValues(values, principal, "http", {
      truncated,
      bytes: Buffer.byteLength(text),
    });
    const accepted = results.filter((r) => r.ok).length;
    const answer: IngestResponse = { results, accepted, rejected: results.length - accepted };
    return json(answer);
  });
}
