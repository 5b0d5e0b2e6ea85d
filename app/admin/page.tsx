import type { Metadata } from "next";
import { headers } from "next/headers";

import { Card, CardContent } from "@/components/ui/card";
import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { listTokens } from "@/lib/server/repositories/tokens";
import { listUsers, toAdminUserView } from "@/lib/server/repositories/users";
import { toAdminTokenView } from "@/lib/view-models/admin";

import { AdminView } from "./_components/admin-view";

export const metadata: Metadata = { title: "Admin" };

/** The URL this request reached us on (behind a proxy: X-Forwarded-*), for copy-paste commands. */
function requestOrigin(h: Headers): string {
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:8080";
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? "http";
  return `${proto}://${host}`;
}

/** /admin (admins only): people (add, change role, disable) and worker tokens (create, revoke). */
export default async function AdminPage() {
  const viewer = await requirePageViewer("/admin");
  if (!hasRole(viewer.role, "admin")) {
    return (
      <Card className="mx-auto max-w-lg">
        <CardContent className="space-y-1">
          <h1 className="text-base font-semibold">Admins only</h1>
          <p className="text-sm text-muted-fg">
            You are signed in as {viewer.name} ({viewer.role}). Ask an admin to manage people and
            worker tokens.
          </p>
        </CardContent>
      </Card>
    );
  }
  const [users, tokens] = await Promise.all([listUsers(prisma()), listTokens(prisma())]);
  return (
    <AdminView
      users={users.map(toAdminUserView)}
      tokens={tokens.map(toAdminTokenView)}
      selfId={viewer.id}
      origin={requestOrigin(await headers())}
    />
  );
}
