import { z } from "zod";

import { ROLES } from "@/lib/roles";
import type {
  AdminTokensPage,
  AdminUsersPage,
  AdminUserView,
  CreatedTokenView,
  CreatedUserView,
} from "@/lib/view-models/admin";

import { defineRoute, idParams } from "./contract";

/** Contracts of the admin routes (`/api/admin/…`, admins only) and of `POST /api/setup`. */

/** `GET /api/admin/tokens` → every worker token, newest first, never secrets. */
export const listTokensRoute = defineRoute({ route: "GET /api/admin/tokens" });
/** Answer of {@link listTokensRoute}. */
export type ListTokensResponse = AdminTokensPage;

/** `POST /api/admin/tokens` → 201 `{id, host, shared, token}` (the secret, shown once). */
export const createTokenRoute = defineRoute({
  route: "POST /api/admin/tokens",
  body: z.strictObject({
    host: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
        "a host name: letters, digits, '.', '_' and '-' (e.g. kpro5)",
      ),
    /** May write to other hosts' runs, sessions and plans (default false). */
    shared: z.boolean().optional(),
  }),
});
/** Answer of {@link createTokenRoute}. */
export type CreateTokenResponse = CreatedTokenView;

/** `DELETE /api/admin/tokens/:id` → `{revoked: id}`. */
export const revokeTokenRoute = defineRoute({
  route: "DELETE /api/admin/tokens/:id",
  params: idParams("token"),
});
/** Answer of {@link revokeTokenRoute}. */
export interface RevokeTokenResponse {
  revoked: number;
}

/** `GET /api/admin/users` → every person with role, state and last activity. */
export const listUsersRoute = defineRoute({ route: "GET /api/admin/users" });
/** Answer of {@link listUsersRoute}. */
export type ListUsersResponse = AdminUsersPage;

/** `POST /api/admin/users` → 201 `{user, generatedPassword}`. */
export const createUserRoute = defineRoute({
  route: "POST /api/admin/users",
  body: z.strictObject({
    email: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    /** Omitted or empty: the server generates one and answers it once. */
    password: z
      .string()
      .max(256)
      .optional()
      .transform((p) => (p ? p : undefined)),
  }),
});
/** Answer of {@link createUserRoute}. */
export type CreateUserResponse = CreatedUserView;

/** `PATCH /api/admin/users/:id` `{role?, disabled?, password?}` → `{user}` (the route answers 400 `invalid_body` when none is sent). */
export const updateUserRoute = defineRoute({
  route: "PATCH /api/admin/users/:id",
  params: z.object({ id: z.string() }),
  body: z.strictObject({
    role: z.enum(ROLES).optional(),
    disabled: z.boolean().optional(),
    /** Checked against the password policy by updateUser (400 naming the problem). */
    password: z.string().max(256).optional(),
  }),
});
/** Answer of {@link updateUserRoute}. */
export interface UpdateUserResponse {
  user: AdminUserView;
}

/** `POST /api/setup` `{name, email, password}` → 201 `{user}`: the first admin of a fresh install. */
export const setupRoute = defineRoute({
  route: "POST /api/setup",
  body: z.strictObject({
    name: z.string(),
    email: z.string(),
    /** Checked against the password policy by createFirstAdmin (400 `invalid_body` naming the problem). */
    password: z.string().max(256),
  }),
});
/** Answer of {@link setupRoute}. */
export interface SetupResponse {
  user: { id: string; name: string; email: string; role: AdminUserView["role"] };
}
