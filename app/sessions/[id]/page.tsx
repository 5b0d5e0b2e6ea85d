import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";

import { InboxAuditList } from "@/components/inbox/audit-list";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { planListQuery } from "@/lib/api/plans";
import { hasRole } from "@/lib/roles";
import { requirePageViewer } from "@/lib/server/auth/page";
import { pool, prisma } from "@/lib/server/db";
import { NotFoundError } from "@/lib/server/errors";
import { listInboxAudit } from "@/lib/server/repositories/inbox-audit";
import { listPlans } from "@/lib/server/repositories/plans";
import { getSession } from "@/lib/server/repositories/sessions";
import type { PlanListView } from "@/lib/view-models/plans";
import { sessionLabel, type SessionDetailView } from "@/lib/view-models/sessions";

import { SessionDetail } from "./_components/session-detail";

/** Loads a session and its plans once per request (shared by metadata and page); null when the id is invalid or unknown. */
const loadSession = cache(
  async (id: string): Promise<{ session: SessionDetailView; plans: PlanListView } | null> => {
    const sessionId = Number(id);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(sessionId) || sessionId <= 0) return null;
    try {
      const now = new Date();
      const [session, plans] = await Promise.all([
        getSession(prisma(), sessionId, now),
        listPlans(prisma(), planListQuery.parse({ session: sessionId }), now),
      ]);
      return { session, plans };
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  },
);

/** Page title: the session's name (title, else project · branch, else key). */
export async function generateMetadata({
  params,
}: {
  params: Promise<{ id: string }>;
}): Promise<Metadata> {
  await requirePageViewer();
  const loaded = await loadSession((await params).id);
  return { title: loaded ? sessionLabel(loaded.session) : "Session not found" };
}

/** /sessions/:id: the current todo list, its timeline and item histories, stuck items, linked plans; live. Approvers and admins also see the session's inbox decisions. */
export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const viewer = await requirePageViewer();
  const loaded = await loadSession((await params).id);
  if (!loaded) notFound();
  const audit =
    viewer.kind === "user" && hasRole(viewer.role, "approver")
      ? await listInboxAudit(pool(), { sessionId: loaded.session.id, limit: 100 })
      : null;
  return (
    <div className="grid gap-4">
      <SessionDetail
        initial={loaded.session}
        initialPlans={loaded.plans}
        renderedAt={Date.parse(loaded.session.asOf)}
      />
      {audit && (
        <Card className="min-w-0" data-testid="session-inbox-audit">
          <CardHeader className="flex flex-row flex-wrap items-center gap-3">
            <CardTitle>Inbox decisions</CardTitle>
            <a
              className="ml-auto inline-flex min-h-11 items-center text-sm text-link underline-offset-4 hover:underline"
              href={`/api/inbox/audit?format=csv&session=${loaded.session.id}`}
              download
            >
              Download CSV
            </a>
          </CardHeader>
          <CardContent>
            <InboxAuditList entries={audit} showSession={false} />
          </CardContent>
        </Card>
      )}
    </div>
  );
}
