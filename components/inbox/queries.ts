import { fetchJson, sendJson } from "@/lib/api-client";
import type { InboxListView } from "@/lib/view-models/inbox";

/** Key of the inbox list; the live topic `inbox` invalidates it (lib/query-keys.ts rule). */
export const inboxQueryKey = ["inbox", "list"] as const;

/** The waiting entries (`GET /api/inbox`). @throws ApiError. */
export function fetchInbox(signal?: AbortSignal): Promise<InboxListView> {
  return fetchJson<InboxListView>("/api/inbox", { signal });
}

/** A person's decision on an inbox entry. */
export interface InboxDecisionRequest {
  decision: "allow" | "deny";
  message?: string;
  editedInput?: Record<string, unknown>;
  /** "Always allow this here": also write an allow rule (pattern on the command/path, project or null = everywhere). */
  alwaysAllow?: { pattern: string; project: string | null };
}

/** Sends a decision (`POST /api/inbox/:id/decision`). @throws ApiError (409 when decided by someone else or the agent stopped waiting). */
export function decideInbox(id: string, body: InboxDecisionRequest): Promise<unknown> {
  return sendJson("POST", `/api/inbox/${encodeURIComponent(id)}/decision`, body);
}
