import type { RawData } from "ws";

import type { FrameRejection } from "./socket-types";

/** Wire-level helpers of the worker SDK's WebSocket client (lib/client/socket.ts): the ingest URL, reading replies. */

/**
 * The `/ws/ingest` URL for a Pitwall base URL: http→ws, https→wss; a base path (reverse proxy
 * prefix) is kept. A URL already ending in `/ws/ingest` is used as is.
 * @throws TypeError on an unparsable URL.
 */
export function ingestUrl(base: string): string {
  const url = new URL(base);
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  if (!url.pathname.endsWith("/ws/ingest"))
    url.pathname = `${url.pathname.replace(/\/+$/, "")}/ws/ingest`;
  return url.toString();
}

/** The UTF-8 text of a ws message (a Buffer, fragments or an ArrayBuffer). */
export function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}

/** An `error` reply whose code this client does not know (a newer server): still final for its frame. */
export function lenientError(value: unknown): FrameRejection | null {
  if (!value || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (
    v.type !== "error" ||
    typeof v.code !== "string" ||
    (v.id !== null && typeof v.id !== "string")
  )
    return null;
  return { id: v.id, code: v.code, message: typeof v.message === "string" ? v.message : "" };
}

/** The `type` of a frame's JSON text, for log lines ("?" when unreadable). */
export function frameType(text: string): string {
  return /"type"\s*:\s*"([^"]{1,40})"/.exec(text)?.[1] ?? "?";
}
