import {
  subscribePushRoute,
  unsubscribePushRoute,
  type SubscribePushResponse,
  type UnsubscribePushResponse,
} from "@/lib/api/push";
import { currentSession } from "@/lib/server/auth/viewer";
import { pool } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { removePushSubscription, savePushSubscription } from "@/lib/server/repositories/push";
import { apiRoute } from "@/lib/server/route-input";

/**
 * POST /api/push/subscriptions (approvers, admins) with a browser's `PushSubscription.toJSON()`
 * `{endpoint, keys: {p256dh, auth}}` → 201 `{id}`: this device receives a push for each new inbox
 * item, until the sign-in session that subscribed signs out. The same endpoint again replaces its row. 400 `invalid_body` (e.g. an http endpoint
 * outside loopback); 401; 403 for viewers and worker tokens.
 */
export const POST = apiRoute("approver", subscribePushRoute, async ({ body }, request, viewer) => {
  const session = await currentSession(request.headers);
  const answer: SubscribePushResponse = {
    id: await savePushSubscription(pool(), viewer.id, body, new Date(), session?.id ?? null),
  };
  return json(answer, 201);
});

/** DELETE /api/push/subscriptions `{endpoint}` (approvers, admins) → `{removed}` (0 when it was not the viewer's). */
export const DELETE = apiRoute(
  "approver",
  unsubscribePushRoute,
  async ({ body }, _request, viewer) => {
    const answer: UnsubscribePushResponse = {
      removed: await removePushSubscription(pool(), viewer.id, body.endpoint),
    };
    return json(answer);
  },
);
