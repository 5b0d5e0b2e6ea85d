import { stringifyJson, type ClientFrameInput, type ErrorCode } from "@/lib/protocol";

import { AllServersFailedError, fetchWithFailover, type ServerUrls } from "./server-urls";

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
 * returns every frame's result. With several URLs (a list, or one comma-separated string) a batch
 * that meets a connection error, a timeout (`timeoutMs` per attempt, default 120 s) or a 5xx is
 * sent to the next URL: the frames keep their ids, so a batch the first instance committed is
 * acked as duplicate, not applied twice. `onBatch` reports progress (frames sent so far).
 * @throws IngestHttpError on a refused request (401, 413) or when every URL failed (5xx, network).
 */
export async function postFrames(
  baseUrl: ServerUrls,
  token: string,
  frames: ClientFrameInput[],
  onBatch?: (sent: number) => void,
  timeoutMs = 120_000,
): Promise<IngestResult[]> {
  const results: IngestResult[] = [];
  let batch: string[] = [];
  let bytes = 2;
  const flush = async () => {
    if (batch.length === 0) return;
    results.push(...(await postBody(baseUrl, token, `[${batch.join(",")}]`, timeoutMs)));
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

async function postBody(
  baseUrl: ServerUrls,
  token: string,
  body: string,
  timeoutMs: number,
): Promise<IngestResult[]> {
  let res: Response;
  try {
    ({ res } = await fetchWithFailover(
      baseUrl,
      "/api/ingest",
      {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      },
      { timeoutMs },
    ));
  } catch (err) {
    if (!(err instanceof AllServersFailedError)) throw err;
    if (!err.lastResponse)
      throw new IngestHttpError(
        `cannot reach Pitwall: ${err.attempts.map((a) => `${a.url} (${a.reason})`).join("; ")}`,
        null,
        null,
      );
    res = err.lastResponse;
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    // The answer broke off (the instance died mid-answer, or the per-attempt timeout hit while reading).
    throw new IngestHttpError(`Pitwall's answer broke off: ${(err as Error).message}`, null, null);
  }
  let parsed: { results?: IngestResult[]; error?: { code: string; message: string } } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // fall through with the raw text below
  }
  if (!res.ok || !parsed.results) {
    const msg = parsed.error?.message ?? text.slice(0, 300);
    throw new IngestHttpError(
      `Pitwall refused the request (HTTP ${res.status}): ${msg}`,
      res.status,
      parsed.error?.code ?? null,
    );
  }
  return parsed.results;
}
