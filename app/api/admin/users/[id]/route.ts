import { z } from "zod";

import { ROLES } from "@/lib/roles";
import { prisma } from "@/lib/server/db";
import { errorResponse, json, parseJsonBody, withViewer } from "@/lib/server/http";
import { toAdminUserView, updateUser } from "@/lib/server/repositories/users";

const changeBody = z.strictObject({
  role: z.enum(ROLES).optional(),
  disabled: z.boolean().optional(),
  /** Checked against the password policy by updateUser (400 naming the problem). */
  password: z.string().max(256).optional(),
});

/**
 * PATCH /api/admin/users/:id `{role?, disabled?, password?}` (admin) → `{user}`. Disabling or a
 * new password ends the person's sessions. 400 bad body; 404 unknown; 409 when it would leave
 * no active admin.
 */
export const PATCH = withViewer(
  "admin",
  async (request, _viewer, ctx: { params: Promise<{ id: string }> }) => {
    const { id } = await ctx.params;
    const body = await parseJsonBody(request, changeBody);
    if (body instanceof Response) return body;
    if (body.role === undefined && body.disabled === undefined && body.password === undefined)
      return errorResponse(
        400,
        "invalid_body",
        "nothing to change: send role, disabled or password",
      );
    return json({ user: toAdminUserView(await updateUser(prisma(), id, body)) });
  },
);
