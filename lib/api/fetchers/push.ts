import { apiPath, fetchJson, sendJson } from "@/lib/api/client";
import {
  pushKeyRoute,
  subscribePushRoute,
  unsubscribePushRoute,
  type PushKeyResponse,
  type PushSubscriptionInput,
  type SubscribePushResponse,
  type UnsubscribePushResponse,
} from "@/lib/api/push";

/**
 * The browser's typed reads and writes of Web Push subscriptions of this browser, built from the
 * contracts of lib/api/push.ts (keys: lib/api/query-keys.ts). Every function throws ApiError for a
 * non-2xx answer and TypeError when the network fails.
 */

/** The server's VAPID public key (`GET /api/push/key`), base64url. */
export async function fetchPushKey(): Promise<string> {
  return (await fetchJson<PushKeyResponse>(apiPath(pushKeyRoute))).publicKey;
}

/** Stores this browser's push subscription (`POST /api/push/subscriptions`; approvers). @throws ApiError 403 for viewers. */
export function subscribePush(subscription: PushSubscriptionInput): Promise<SubscribePushResponse> {
  return sendJson<SubscribePushResponse>("POST", apiPath(subscribePushRoute), subscription);
}

/** Forgets this browser's push subscription (`DELETE /api/push/subscriptions`). */
export function unsubscribePush(endpoint: string): Promise<UnsubscribePushResponse> {
  return sendJson<UnsubscribePushResponse>("DELETE", apiPath(unsubscribePushRoute), { endpoint });
}
