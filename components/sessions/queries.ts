import { fetchJson } from "@/lib/api-client";
import type { SessionDetailView, SessionListView } from "@/lib/view-models/sessions";

/**
 * react-query keys, fetchers and paths of agent sessions. The keys follow lib/query-keys.ts's one
 * rule, so `useLiveTopics` alone keeps them live: topic `sessions` → ["sessions", …] (the list),
 * `session:<id>` → ["session", id].
 */

/** Key of the session list. */
export const sessionsQueryKey = ["sessions", "list"] as const;
/** Key of one session's page. */
export const sessionQueryKey = (id: number) => ["session", id] as const;

/** Live topic of one session. */
export const sessionTopic = (id: number): string => `session:${id}`;

/** `/sessions/:id`. */
export function sessionPath(id: number): string {
  return `/sessions/${id}`;
}

/** The session list (`GET /api/sessions`). @throws ApiError. */
export function fetchSessions(signal?: AbortSignal): Promise<SessionListView> {
  return fetchJson<SessionListView>("/api/sessions", { signal });
}

/** One session (`GET /api/sessions/:id`). @throws ApiError (404 when unknown). */
export function fetchSession(id: number, signal?: AbortSignal): Promise<SessionDetailView> {
  return fetchJson<SessionDetailView>(`/api/sessions/${id}`, { signal });
}
