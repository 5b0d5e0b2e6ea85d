import webpush from "web-push";

import type { PushPayload } from "@/lib/api/push";
import type { PushTarget } from "@/lib/server/repositories/push";

import type { VapidKeys } from "./keys";

/**
 * One Web Push request (RFC 8030/8291/8292): `web-push` encrypts the payload (aes128gcm, to the
 * browser's p256dh/auth keys) and signs the VAPID header; the request itself goes out with
 * `fetch`, because web-push's own sender speaks only https and a local push service (tests, an
 * air-gapped site's own) may be plain http on loopback (lib/api/push.ts `pushEndpoint`).
 */

/** How a push went: accepted; gone (404/410: the browser unsubscribed, remove it); failed (kept). */
export type PushOutcome =
  | { outcome: "sent"; status: number }
  | { outcome: "gone"; status: number }
  | { outcome: "failed"; status: number | null; message: string };

/** Options of {@link sendPush}. */
export interface SendPushOptions {
  vapid: VapidKeys;
  subject: string;
  /** Seconds the push service keeps an undelivered push (default 600: an old decision request is noise). */
  ttlS?: number;
  /** Request timeout, ms (default 10 000). */
  timeoutMs?: number;
}

/** Sends `payload` to `target`. Never throws: every failure is an outcome. */
export async function sendPush(
  target: PushTarget,
  payload: PushPayload,
  opts: SendPushOptions,
): Promise<PushOutcome> {
  try {
    const req = webpush.generateRequestDetails(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      JSON.stringify(payload),
      {
        vapidDetails: { subject: opts.subject, ...opts.vapid },
        TTL: opts.ttlS ?? 600,
        urgency: "high",
        contentEncoding: "aes128gcm",
      },
    );
    const res = await fetch(req.endpoint, {
      method: req.method,
      // fetch sets Content-Length itself (a forbidden request header); every other value as text.
      headers: Object.fromEntries(
        Object.entries(req.headers)
          .filter(([k]) => k.toLowerCase() !== "content-length")
          .map(([k, v]) => [k, String(v)]),
      ),
      body: req.body ? new Uint8Array(req.body) : undefined,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.ok) return { outcome: "sent", status: res.status };
    if (res.status === 404 || res.status === 410) return { outcome: "gone", status: res.status };
    return {
      outcome: "failed",
      status: res.status,
      message: `push service answered HTTP ${res.status}`,
    };
  } catch (err) {
    return { outcome: "failed", status: null, message: (err as Error).message };
  }
}
