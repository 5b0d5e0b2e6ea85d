import {
  createUserRoute,
  listUsersRoute,
  type CreateUserResponse,
  type ListUsersResponse,
} from "@/lib/api/admin";
import { prisma } from "@/lib/server/db";
import { json } from "@/lib/server/http";
import { createUser, listUsers, toAdminUserView } from "@/lib/server/repositories/users";
import { apiRoute } from "@/lib/server/route-input";

/** Read at request time: never prerendered at build. */
export const dynamic = "force-dynamic";

/** GET /api/admin/users → `{users}` (admin): every person with role, state and last activity. */
export const GET = apiRoute("admin", listUsersRoute, async () => {
  const page: ListUsersResponse = { users: (await listUsers(prisma())).map(toAdminUserView) };
  return json(page);
});

/**
 * POST /api/admin/users `{email, name, role, password?}` (admin) → 201 `{user, generatedPassword}`
 * (the password only when the server generated it; shown once). 400 bad body; 409 email taken.
 */
export const POST = apiRoute("admin", createUserRoute, async ({ body }) => {
  const created = await createUser(prisma(), body);
  const view: CreateUserResponse = {
    user: toAdminUserView(created.user),
    generatedPassword: created.generated ? created.password : null,
  };
  return json(view, 201);
});
