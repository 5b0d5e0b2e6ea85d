/**
 * Read models of the admin page: people and worker tokens. Plain JSON shapes; timestamps are
 * ISO 8601 strings. Never secrets: a token's secret is only in the answer that created it.
 */
import type { Role } from "@/lib/roles";

/** A person with their role and state. */
export interface AdminUserView {
  id: string;
  name: string;
  email: string;
  role: Role;
  /** When an admin disabled the account; null while it may sign in. */
  disabledAt: string | null;
  createdAt: string;
  /** Last session activity (refreshed at most daily); null: never signed in. */
  lastSeenAt: string | null;
}

/** A worker token, without its secret. */
export interface AdminTokenView {
  id: number;
  host: string;
  /** First characters of the secret (`pw_AbCdEf`), to tell tokens apart. */
  prefix: string;
  /** Created with `--shared`: may also write to runs, sessions and plans other hosts' tokens created. */
  shared: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** GET /api/admin/users. */
export interface AdminUsersPage {
  users: AdminUserView[];
}

/** GET /api/admin/tokens. */
export interface AdminTokensPage {
  tokens: AdminTokenView[];
}

/** POST /api/admin/users: the account, and its password when the server generated it (shown once). */
export interface CreatedUserView {
  user: AdminUserView;
  generatedPassword: string | null;
}

/** POST /api/admin/tokens: the token's secret, shown once. */
export interface CreatedTokenView {
  id: number;
  host: string;
  shared: boolean;
  token: string;
}

/** A token row as `listTokens` returns it, mapped to its view (dates as ISO strings). */
export function toAdminTokenView(t: {
  id: number;
  prefix: string;
  shared: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  host: { name: string };
}): AdminTokenView {
  return {
    id: t.id,
    host: t.host.name,
    prefix: t.prefix,
    shared: t.shared,
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
  };
}
