import { PayloadTooLargeError } from "./errors";

/**
 * Reads a request body as UTF-8 text (invalid sequences become U+FFFD), at most `maxBytes`.
 * The limit is checked on the declared `Content-Length` first and then on every chunk as it
 * arrives, so a chunked body that never ends, or a huge one, is cut as soon as it crosses the
 * limit: reading stops (the stream is cancelled) and nothing beyond the limit is held in memory.
 * @throws PayloadTooLargeError (HTTP 413, code `code`) when the body is over `maxBytes`.
 */
export async function readBodyText(
  request: Request,
  maxBytes: number,
  code: "batch_too_large" | "body_too_large" = "body_too_large",
): Promise<string> {
  const tooLarge = () => new PayloadTooLargeError(`body over ${maxBytes} bytes; split it`, code);
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}
