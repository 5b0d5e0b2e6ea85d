import { z } from "zod";

import { prisma } from "@/lib/server/db";
import { json, parseJsonBody, withViewer } from "@/lib/server/http";
import { createToken, listTokens } from "@/lib/server/repositories/tokens";
import {
  toAdminTokenView,
  type AdminTokensPage,
  type CreatedTokenView,
} from "@/lib/view-models/admin";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

const newTokenBody = z.strictObject({
  host: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
      "a host name: letters, digits, '.', '_' and '-' (e.g. kpro5)",
    ),
  /** May write to other hosts' runs, sessions and plans (default false). */
  shared: z.boolean().optional(),
});

/** GET /api/admin/tokens → `{tokens}` (admin): every worker token, newest first, never secrets. */
export const GET = withViewer("admin", async () => {
  const rows = await listTokens(prisma());
  const page: AdminTokensPage = { tokens: rows.map(toAdminTokenView) };
  return json(page);
});

/** POST /api/admin/tokens `{host, shared?}` (admin) → 201 `{id, host, shared, token}`: the secret, shown this once (stored hashed). */
export const POST = withViewer("admin", async (request) => {
  const body = await parseJsonBody(request, newTokenBody);
  if (body instanceof Response) return body;
  const created = await createToken(prisma(), body.host, { shared: body.shared });
  const view: CreatedTokenView = {
    id: created.id,
    host: created.hostName,
    shared: created.shared,
    token: created.token,
  };
  return json(view, 201);
});
