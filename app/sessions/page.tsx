import type { Metadata } from "next";
import { headers } from "next/headers";

import { sessionListQuery } from "@/lib/api/sessions";
import { requirePageViewer } from "@/lib/server/auth/page";
import { prisma } from "@/lib/server/db";
import { listSessions } from "@/lib/server/repositories/sessions";

import { SessionsView } from "./_components/sessions-view";

export const metadata: Metadata = { title: "Sessions" };

/** The URL this request reached us on (behind a proxy: X-Forwarded-*), for copy-paste commands. */
function requestOrigin(h: Headers): string {
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:8080";
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? "http";
  return `${proto}://${host}`;
}

/** /sessions: agent sessions with their todo progress, most recently updated first; live. */
export default async function SessionsPage() {
  await requirePageViewer();
  const h = await headers();
  const initial = await listSessions(prisma(), sessionListQuery.parse({}));
  return (
    <SessionsView
      initial={initial}
      renderedAt={Date.parse(initial.asOf)}
      origin={requestOrigin(h)}
    />
  );
}
