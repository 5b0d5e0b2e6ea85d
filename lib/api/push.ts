import { z } from "zod";

import { defineRoute } from "./contract";

/**
 * Contracts of the Web Push routes (`/api/push…`, docs/notifications.md): the server's VAPID
 * public key, a browser's subscription, and the one-use action tokens a notification's
 * Approve / Deny buttons post.
 */

/** `GET /api/push/key` (signed-in) → {@link PushKeyResponse}. */
export const pushKeyRoute = defineRoute({ route: "GET /api/push/key" });
/** Answer of {@link pushKeyRoute}: the VAPID public key (base64url, uncompressed P-256 point). */
export interface PushKeyResponse {
  publicKey: string;
}

const base64url = (what: string, min: number, max: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url`)
    .min(min, `${what} is too short`)
    .max(max, `${what} is too long`);

/**
 * A push service URL: https anywhere, plain http only to this machine's loopback (a local test
 * push service); never credentials in the URL.
 */
export const pushEndpoint = z
  .url({ message: "endpoint must be a URL" })
  .max(2000)
  .refine((u) => {
    const url = new URL(u);
    if (url.username || url.password) return false;
    if (url.protocol === "https:") return true;
    return url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  }, "endpoint must be an https URL (plain http only to 127.0.0.1, [::1] or localhost)");

/** A browser's `PushSubscription.toJSON()` (body of POST /api/push/subscriptions). */
export const pushSubscriptionInput = z.object({
  endpoint: pushEndpoint,
  /** Ignored (the browser's own expiry; a gone subscription is removed when the push service says so). */
  expirationTime: z.number().nullable().optional(),
  keys: z.strictObject({
    /** The browser's P-256 public key, 65 bytes as base64url (87-88 characters). */
    p256dh: base64url("keys.p256dh", 80, 100),
    /** The browser's 16-byte auth secret as base64url. */
    auth: base64url("keys.auth", 16, 30),
  }),
});
/** Parsed {@link pushSubscriptionInput}. */
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionInput>;

/** `POST /api/push/subscriptions` (approvers, admins) → 201 {@link SubscribePushResponse}. */
export const subscribePushRoute = defineRoute({
  route: "POST /api/push/subscriptions",
  body: pushSubscriptionInput,
});
/** Answer of {@link subscribePushRoute}. */
export interface SubscribePushResponse {
  id: number;
}

/** `DELETE /api/push/subscriptions` `{endpoint}` (approvers, admins) → {@link UnsubscribePushResponse}. */
export const unsubscribePushRoute = defineRoute({
  route: "DELETE /api/push/subscriptions",
  body: z.strictObject({ endpoint: z.string().min(1).max(2000) }),
});
/** Answer of {@link unsubscribePushRoute}: how many of the viewer's subscriptions were removed (0 or 1). */
export interface UnsubscribePushResponse {
  removed: number;
}

/** `POST /api/push/action` `{token}` (no session: the token is the credential) → {@link PushActionResponse}. */
export const pushActionRoute = defineRoute({
  route: "POST /api/push/action",
  body: z.strictObject({ token: z.string().min(1).max(2000) }),
});
/** Answer of {@link pushActionRoute}: what was decided on which item, by whom. */
export interface PushActionResponse {
  id: string;
  decision: "allow" | "deny";
  decidedBy: string;
  decidedAt: string;
}

/** A button of a pushed notification: `token` is the one-use action token it posts. */
export interface PushAction {
  action: "allow" | "deny";
  title: string;
  token: string;
}

/**
 * The JSON a push carries (encrypted to the device; read by public/sw.js). `url` is relative to
 * the app's origin; `actions` is empty for items that cannot be decided from a notification
 * (questions need an answer, notices are not decidable).
 */
export interface PushPayload {
  v: 1;
  /** The inbox id: "12" (item) or "plan-7" (plan). */
  id: string;
  kind: string;
  agent: string;
  host: string;
  summary: string;
  title: string;
  body: string;
  url: string;
  /** Notification tag: a later push for the same item replaces the notification. */
  tag: string;
  /** A reminder (the item was escalated): the replacing notification alerts again. */
  renotify: boolean;
  actions: PushAction[];
}
