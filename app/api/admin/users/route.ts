import { z } from "zod";

import { ROLES } from "@/lib/roles";
import { prisma } from "@/lib/server/db";
import { json, parseJsonBody, withViewer } from "@/lib/server/http";
import { createUser, listUsers, toAdminUserView } from "@/lib/server/repositories/users";
import type { AdminUsersPage, CreatedUserView } from "@/lib/view-models/admin";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

const newUserBody = z.strictObject({
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  /** Omitted or empty: the server generates one and answers it once. */
  password: z
    .string()
    .max(256)
    .optional()
    .transform((p) => (p ? p : undefined)),
});

/** GET /api/admin/users → `{users}` (admin): every person with role, state and last activity. */
export const GET = withViewer("admin", async () => {
  const page: AdminUsersPage = { users: (await listUsers(prisma())).map(toAdminUserView) };
  return json(page);
});

/**
 * POST /api/admin/users `{email, name, role, password?}` (admin) → 201 `{user, generatedPassword}`
 * (the password only when the server generated it; shown once). 400 bad body; 409 email taken.
 */
export const POST = withViewer("admin", async (request) => {
  const body = await parseJsonBody(request, newUserBody);
  if (body instanceof Response) return body;
  const created = await createUser(prisma(), body);
  const view: CreatedUserView = {
    user: toAdminUserView(created.user),
    generatedPassword: created.generated ? created.password : null,
  };
  return json(view, 201);
});
