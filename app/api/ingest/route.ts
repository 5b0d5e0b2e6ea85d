import { JsonSyntaxError, MAX_FRAME_BYTES, parseLenientJson } from "@/lib/protocol";
import { errorResponse, handle, json } from "@/lib/server/http";
import { authenticateWorker, ingestValues } from "@/lib/server/ingest/service";

/** Largest accepted batch body: 16 frames' worth of the per-frame limit. */
const MAX_BODY_BYTES = 16 * MAX_FRAME_BYTES;
const MAX_FRAMES = 10_000;

/**
 * POST /api/ingest: a JSON array of protocol frames (or one frame) with a worker token.
 * Answers 200 with `{ results: [{id, ok, duplicate?} | {id, ok:false, code, message}], accepted,
 * rejected }` in input order; valid frames are committed even when others in the batch are bad.
 */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const principal = await authenticateWorker(request.headers.get("authorization"));
    const declared = Number(request.headers.get("content-length") ?? "0");
    if (declared > MAX_BODY_BYTES) return errorResponse(413, "batch_too_large", `body over ${MAX_BODY_BYTES} bytes; split the batch`);
    const text = await request.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) return errorResponse(413, "batch_too_large", `body over ${MAX_BODY_BYTES} bytes; split the batch`);
    let body: unknown;
    try {
      body = parseLenientJson(text);
    } catch (err) {
      if (err instanceof JsonSyntaxError) return errorResponse(400, "invalid_json", `body is not JSON: ${err.message}`);
      throw err;
    }
    const values = Array.isArray(body) ? body : [body];
    if (values.length > MAX_FRAMES) return errorResponse(413, "batch_too_large", `at most ${MAX_FRAMES} frames per request`);
    const results = await ingestValues(values, principal, "http");
    const accepted = results.filter((r) => r.ok).length;
    return json({ results, accepted, rejected: results.length - accepted });
  });
}
