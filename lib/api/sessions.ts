import { z } from "zod";

import type { SessionDetailView, SessionListView } from "@/lib/view-models/sessions";

import { defineRoute, idParams } from "./contract";

/** Contracts of the agent-session routes (`/api/sessions…`). */

/** Query of `GET /api/sessions`: how many sessions (most recently updated first), 1–500, default 100. */
export const sessionListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
/** Parsed {@link sessionListQuery}. */
export type SessionListQuery = z.infer<typeof sessionListQuery>;

/** `GET /api/sessions?limit` → agent sessions, most recently updated first. */
export const listSessionsRoute = defineRoute({
  route: "GET /api/sessions",
  query: sessionListQuery,
});
/** Answer of {@link listSessionsRoute}. */
export type ListSessionsResponse = SessionListView;

/** `GET /api/sessions/:id` → the session's list, timeline and item histories. */
export const getSessionRoute = defineRoute({
  route: "GET /api/sessions/:id",
  params: idParams("session"),
});
/** Answer of {@link getSessionRoute}. */
export type SessionResponse = SessionDetailView;
