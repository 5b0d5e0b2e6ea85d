import { apiPath, fetchJson } from "@/lib/api/client";
import {
  getSessionRoute,
  listSessionsRoute,
  type ListSessionsResponse,
  type SessionResponse,
} from "@/lib/api/sessions";

/**
 * The browser's typed reads and writes of agent sessions, built from the contracts of
 * lib/api/sessions.ts (keys: lib/api/query-keys.ts). Every function throws ApiError for a non-2xx
 * answer and TypeError when the network fails.
 */

/** The session list (`GET /api/sessions`). @throws ApiError. */
export function fetchSessions(signal?: AbortSignal): Promise<ListSessionsResponse> {
  return fetchJson<ListSessionsResponse>(apiPath(listSessionsRoute), { signal });
}

/** One session (`GET /api/sessions/:id`). @throws ApiError (404 when unknown). */
export function fetchSession(id: number, signal?: AbortSignal): Promise<SessionResponse> {
  return fetchJson<SessionResponse>(apiPath(getSessionRoute, { id }), { signal });
}
