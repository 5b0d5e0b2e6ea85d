import { updateUserRoute, type UpdateUserResponse } from "@/lib/api/admin";
import { prisma } from "@/lib/server/db";
import { errorResponse, json } from "@/lib/server/http";
import { toAdminUserView, updateUser } from "@/lib/server/repositories/users";
import { apiRoute } from "@/lib/server/route-input";

/**
 * PATCH /api/admin/users/:id `{role?, disabled?, password?}` (admin) → `{user}`. Disabling or a
 * new password ends the person's sessions. 400 bad body; 404 unknown; 409 when it would leave
 * no active admin.
 */
export const PATCH = apiRoute("admin", updateUserRoute, async ({ params, body }) => {
  if (body.role === undefined && body.disabled === undefined && body.password === undefined)
    return errorResponse(400, "invalid_body", "nothing to change: send role, disabled or password");
  const answer: UpdateUserResponse = {
    user: toAdminUserView(await updateUser(prisma(), params.id, body)),
  };
  return json(answer);
});
