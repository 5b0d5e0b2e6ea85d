import {
  createTokenRoute,
  listTokensRoute,
  type CreateTokenResponse,
  type ListTokensResponse,
} from "@/lib/api/admin";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { createToken, listTokens } from "@/lib/server/repositories/tokens";
import { apiRoute } from "@/lib/server/route-input";
import { toAdminTokenView } from "@/lib/view-models/admin";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/admin/tokens → `{tokens}` (admin): every worker token, newest first, never secrets. */
export const GET = apiRoute("admin", listTokensRoute, async () => {
  const rows = await listTokens(prisma());
  const page: ListTokensResponse = { tokens: rows.map(toAdminTokenView) };
  return json(page);
});

/** POST /api/admin/tokens `{host, shared?}` (admin) → 201 `{id, host, shared, token}`: the secret, shown this once (stored hashed). */
export const POST = apiRoute("admin", createTokenRoute, async ({ body }) => {
  const created = await createToken(prisma(), body.host, { shared: body.shared });
  const view: CreateTokenResponse = {
    id: created.id,
    host: created.hostName,
    shared: created.shared,
    token: created.token,
  };
  return json(view, 201);
});
