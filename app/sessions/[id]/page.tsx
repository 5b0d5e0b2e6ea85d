import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { NotFoundError } from "@/lib/server/errors";
import { listPlans, planListQuery } from "@/lib/server/repositories/plans";
import { getSession } from "@/lib/server/repositories/sessions";
import type { PlanListView } from "@/lib/view-models/plans";
import { sessionLabel, type SessionDetailView } from "@/lib/view-models/sessions";
import { SessionDetail } from "./_components/session-detail";

/** Loads a session and its plans once per request (shared by metadata and page); null when the id is invalid or unknown. */
const loadSession = cache(async (id: string): Promise<{ session: SessionDetailView; plans: PlanListView } | null> => {
  const sessionId = Number(id);
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(sessionId) || sessionId <= 0) return null;
  try {
    const now = new Date();
    const [session, plans] = await Promise.all([getSession(prisma(), sessionId, now), listPlans(prisma(), planListQuery.parse({ session: sessionId }), now)]);
    return { session, plans };
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
});

/** Page title: the session's name (title, else project · branch, else key). */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  await requirePageViewer();
  const loaded = await loadSession((await params).id);
  return { title: loaded ? sessionLabel(loaded.session) : "Session not found" };
}

/** /sessions/:id: the current todo list, its timeline and item histories, stuck items, linked plans; live. */
export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  await requirePageViewer();
  const loaded = await loadSession((await params).id);
  if (!loaded) notFound();
  return <SessionDetail initial={loaded.session} initialPlans={loaded.plans} renderedAt={Date.parse(loaded.session.asOf)} />;
}
