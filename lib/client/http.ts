import { stringifyJson, type ClientFrameInput, type ErrorCode } from "@/lib/protocol";

/** Per-frame result of `POST /api/ingest`, in input order. */
export type IngestResult =
  | { id: string; ok: true; duplicate: boolean }
  | { id: string; ok: false; code: ErrorCode; message: string };

/** Thrown when the server refuses a whole request (auth, size) or cannot be reached. */
export class IngestHttpError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "IngestHttpError";
  }
}

/** Largest body we send in one request (the server accepts 16 MiB). */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Sends frames to `POST {baseUrl}/api/ingest` in batches of at most 4 MiB, in order, and
 * returns every frame's result. `onBatch` reports progress (frames sent so far).
 * @throws IngestHttpError on a refused request (401, 413, 5xx) or a network failure.
 */
export async function postFrames(
  baseUrl: string,
  token: string,
  frames: ClientFrameInput[],
  onBatch?: (sent: number) => void,
): Promise<IngestResult[]> {
  const results: IngestResult[] = [];
  let batch: string[] = [];
  let bytes = 2;
  const flush = async () => {
    if (batch.length === 0) return;
    results.push(...(await postBody(baseUrl, token, `[${batch.join(",")}]`)));
    batch = [];
    bytes = 2;
    onBatch?.(results.length);
  };
  for (const frame of frames) {
    const text = stringifyJson(frame);
    if (bytes + text.length + 1 > MAX_BATCH_BYTES) await flush();
    batch.push(text);
    bytes += text.length + 1;
  }
  await flush();
  return results;
}

async function postBody(baseUrl: string, token: string, body: string): Promise<IngestResult[]> {
  const url = new URL("/api/ingest", baseUrl);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });
  } catch (err) {
    throw new IngestHttpError(`cannot reach Pitwall at ${baseUrl}: ${(err as Error).cause ?? (err as Error).message}`, null, null);
  }
  const text = await res.text();
  let parsed: { results?: IngestResult[]; error?: { code: string; message: string } } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // fall through with the raw text below
  }
  if (!res.ok || !parsed.results) {
    const msg = parsed.error?.message ?? text.slice(0, 300);
    throw new IngestHttpError(`Pitwall refused the request (HTTP ${res.status}): ${msg}`, res.status, parsed.error?.code ?? null);
  }
  return parsed.results;
}
