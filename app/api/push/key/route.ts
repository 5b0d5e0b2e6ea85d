import { pushKeyRoute, type PushKeyResponse } from "@/lib/api/push";
import { pool } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { vapidKeys } from "@/lib/server/push/keys";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/push/key (signed-in) → `{publicKey}`: the VAPID key a browser subscribes with (made at first use). */
export const GET = apiRoute("viewer", pushKeyRoute, async () => {
  const answer: PushKeyResponse = { publicKey: (await vapidKeys(pool())).publicKey };
  return json(answer);
});
