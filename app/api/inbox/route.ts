import { after } from "next/server";

import { listInboxRoute, openInboxItemRoute, type ListInboxResponse } from "@/lib/api/inbox";
import { pool } from "@/lib/server/db";
import { parseEnv } from "@/lib/server/env";
import { handle, json } from "@/lib/server/http";
import { authenticateWorker } from "@/lib/server/ingest/service";
import { logger } from "@/lib/server/logger";
import { announceNewInboxItems } from "@/lib/server/notify/inbox-new";
import { createInboxItem } from "@/lib/server/repositories/inbox-agent";
import { listInbox } from "@/lib/server/repositories/inbox-list";
import { apiRoute, readInput, type RouteContext } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/inbox → `{ asOf, count, items }`: everything agents wait on (permissions and
 * proposed plans), oldest first, each with agent, host, project, branch, session, the todo item
 * in progress and `waitingMs`. The tool input, diff and plan markdown are included only for
 * signed-in people (null for worker tokens).
 */
export const GET = apiRoute("viewer", listInboxRoute, async (_input, _request, viewer) => {
  const at = new Date();
  const items = await listInbox(pool(), { withDetail: viewer.kind === "user" }, at);
  const answer: ListInboxResponse = { asOf: at.toISOString(), count: items.length, items };
  return json(answer);
});

/**
 * POST /api/inbox (worker token) `{key, kind, agent, session?, cwd?, project?, gitBranch?,
 * toolName?, summary, input?, diff?, expiresInS}` → 201 `{id, status, decision}`: an agent opens
 * an item and then long-polls GET /api/inbox/:id/decision — unless an inbox rule decided it at
 * once (`status: "decided"`, `decision` as the long-poll would give it; deny rules win). Re-sending
 * the same key returns the same item. 400 `invalid_body`; 401 without a valid token; 415 unless JSON.
 * A waiting item is posted to the webhook (with its kind and link) and pushed to subscribed
 * approvers right after the answer (lib/server/notify/inbox-new.ts; the notifier loop catches
 * any this misses).
 */
export async function POST(request: Request, ctx: RouteContext): Promise<Response> {
  return handle(async () => {
    const principal = await authenticateWorker(request.headers.get("authorization"));
    const { body } = await readInput(request, ctx, openInboxItemRoute);
    const item = await createInboxItem(pool(), principal, body);
    if (item.status === "waiting") {
      const env = parseEnv();
      after(() =>
        announceNewInboxItems(pool(), {
          log: logger,
          publicUrl: env.PITWALL_PUBLIC_URL ?? new URL(request.url).origin,
          webhookUrl: env.PITWALL_WEBHOOK_URL,
        }),
      );
    }
    return json(item, 201);
  });
}
