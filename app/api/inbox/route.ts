import { pool } from "@/lib/server/db";
import { handle, json, parseJsonBody, withViewer } from "@/lib/server/http";
import { authenticateWorker } from "@/lib/server/ingest/service";
import { createInboxItem, inboxRequestInput, listInbox } from "@/lib/server/repositories/inbox";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/**
 * GET /api/inbox → `{ asOf, count, items }`: everything agents wait on (permissions and
 * proposed plans), oldest first, each with agent, host, project, branch, session, the todo item
 * in progress and `waitingMs`. The tool input, diff and plan markdown are included only for
 * signed-in people (null for worker tokens).
 */
export const GET = withViewer("viewer", async (_request, viewer) => {
  const at = new Date();
  const items = await listInbox(pool(), { withDetail: viewer.kind === "user" }, at);
  return json({ asOf: at.toISOString(), count: items.length, items });
});

/**
 * POST /api/inbox (worker token) `{key, kind, agent, session?, cwd?, project?, gitBranch?,
 * toolName?, summary, input?, diff?, expiresInS}` → 201 `{id, status, decision}`: an agent opens
 * an item and then long-polls GET /api/inbox/:id/decision — unless an inbox rule decided it at
 * once (`status: "decided"`, `decision` as the long-poll would give it; deny rules win). Re-sending
 * the same key returns the same item. 400 `invalid_body`; 401 without a valid token; 415 unless JSON.
 */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const principal = await authenticateWorker(request.headers.get("authorization"));
    const input = await parseJsonBody(request, inboxRequestInput);
    if (input instanceof Response) return input;
    return json(await createInboxItem(pool(), principal, input), 201);
  });
}
