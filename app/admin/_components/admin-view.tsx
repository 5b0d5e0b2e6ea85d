"use client";

import type { AdminTokenView, AdminUserView } from "@/lib/view-models/admin";

import { TokensCard } from "./tokens-card";
import { UsersCard } from "./users-card";

/** The admin page: people, then worker tokens. Changes reload the server data (router.refresh). */
export function AdminView({
  users,
  tokens,
  selfId,
  origin,
}: {
  users: AdminUserView[];
  tokens: AdminTokenView[];
  selfId: string;
  origin: string;
}) {
  return (
    <div className="grid gap-4">
      <h1 className="text-lg font-semibold tracking-tight">Admin</h1>
      <UsersCard users={users} selfId={selfId} />
      <TokensCard tokens={tokens} origin={origin} />
    </div>
  );
}
