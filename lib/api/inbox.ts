import { z } from "zod";

import { inboxRuleInput, RULE_AGENTS } from "@/lib/inbox/rules";
import type { InboxAuditEntry, InboxListView, InboxRuleView } from "@/lib/view-models/inbox";

import { defineRoute, idParams, waitQuery } from "./contract";

/** Contracts of the inbox routes (`/api/inbox…`). */

/** `GET /api/inbox` → everything agents wait on, oldest first. */
export const listInboxRoute = defineRoute({ route: "GET /api/inbox" });
/** Answer of {@link listInboxRoute}. */
export type ListInboxResponse = InboxListView;

/** What an agent's hook sends to open an item (HTTP body of POST /api/inbox, worker token). */
export const inboxRequestInput = z.strictObject({
  /** The agent's id for this request; re-sending the same key returns the same item. */
  key: z.string().min(1).max(200),
  kind: z.enum(["permission", "question", "notice"]),
  agent: z.string().min(1).max(50),
  /** The agent session's key (as in session.* frames), when known. */
  session: z.string().min(1).max(200).optional(),
  cwd: z.string().max(4000).optional(),
  project: z.string().max(500).optional(),
  gitBranch: z.string().max(500).optional(),
  toolName: z.string().max(200).optional(),
  summary: z.string().min(1).max(2000),
  input: z.record(z.string(), z.unknown()).optional(),
  diff: z.string().max(200_000).optional(),
  /** Seconds until the item expires (the agent stops waiting by then). */
  expiresInS: z
    .number()
    .int()
    .min(5)
    .max(30 * 86_400),
});
/** Parsed {@link inboxRequestInput}. */
export type InboxRequestInput = z.infer<typeof inboxRequestInput>;

/** A person's decision (HTTP body of POST /api/inbox/:id/decision). */
export const inboxDecisionInput = z
  .strictObject({
    decision: z.enum(["allow", "deny"]),
    /** Deny: the reason the model reads. Allow: a note. */
    message: z.string().max(20_000).optional(),
    /** Allow with edited input: fields replacing the tool's input (e.g. `{command: "pytest -x"}`). */
    editedInput: z.record(z.string(), z.unknown()).optional(),
    /**
     * "Always allow this here": also write an allow rule for the item's tool with this pattern
     * (the exact command or path, or a glob the person edited), project (null = everywhere) and agent.
     */
    alwaysAllow: z
      .strictObject({
        pattern: z.string().trim().min(1).max(2000),
        project: z.string().trim().min(1).max(500).nullable(),
        agent: z.enum(RULE_AGENTS).default("any"),
      })
      .optional(),
  })
  .transform((d) => ({ ...d, message: d.message?.trim() ? d.message.trim() : undefined }))
  .refine((d) => d.decision === "allow" || d.editedInput === undefined, {
    message: "editedInput goes with allow only",
    path: ["editedInput"],
  })
  .refine(
    (d) => d.alwaysAllow === undefined || (d.decision === "allow" && d.editedInput === undefined),
    { message: "alwaysAllow goes with a plain allow only", path: ["alwaysAllow"] },
  );
/** Parsed {@link inboxDecisionInput}. */
export type InboxDecisionInput = z.infer<typeof inboxDecisionInput>;

/** The decision an agent receives for its item. */
export interface InboxDecision {
  decision: "allow" | "deny";
  message: string | null;
  editedInput: Record<string, unknown> | null;
  decidedBy: string;
  decidedAt: string;
}

/** `POST /api/inbox` (worker token) → 201 `{id, status, decision}`. */
export const openInboxItemRoute = defineRoute({
  route: "POST /api/inbox",
  body: inboxRequestInput,
});

/** An inbox id in a path: "12" (inbox item) or "plan-7" (plan). */
export type InboxItemRef = { kind: "item" | "plan"; n: number };

/** Parses "12" (inbox item) or "plan-7" (plan); null when neither. */
export function parseInboxRef(id: string): InboxItemRef | null {
  const m = /^(plan-)?(\d{1,9})$/.exec(id);
  if (!m || Number(m[2]) <= 0) return null;
  return { kind: m[1] ? "plan" : "item", n: Number(m[2]) };
}

/** Path parameters `{id}` of `/api/inbox/:id/decision` with the message a bad id gets. */
function inboxRefParams(message: string, kinds: readonly InboxItemRef["kind"][]) {
  return z.object({
    id: z.string().transform((id, ctx) => {
      const ref = parseInboxRef(id);
      if (ref && kinds.includes(ref.kind)) return ref;
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }),
  });
}

/** `POST /api/inbox/:id/decision` (approvers) → `{decision}`; `:id` is "12" or "plan-7". */
export const decideInboxRoute = defineRoute({
  route: "POST /api/inbox/:id/decision",
  params: inboxRefParams("id must be an inbox item id (12) or a plan id (plan-7)", [
    "item",
    "plan",
  ]),
  body: inboxDecisionInput,
});

/** `GET /api/inbox/:id/decision?wait` (the item's worker token) → `{status, decision, expiresAt}`. */
export const inboxDecisionRoute = defineRoute({
  route: "GET /api/inbox/:id/decision",
  params: inboxRefParams("id must be an inbox item id (plans: GET /api/plans/:key/decision)", [
    "item",
  ]),
  query: waitQuery,
});

/** `DELETE /api/inbox/:id/decision` (the item's worker token) → `{status}`: answered elsewhere. */
export const closeInboxItemRoute = defineRoute({
  route: "DELETE /api/inbox/:id/decision",
  params: inboxRefParams("id must be an inbox item id", ["item"]),
});

/** Query of GET /api/inbox/audit: `session` (AgentSession id), `before` (ISO time, for paging), `limit`, `format`. */
export const inboxAuditQuery = z.strictObject({
  session: z.coerce.number().int().positive().optional(),
  before: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
  format: z.enum(["json", "csv"]).default("json"),
});
/** A validated audit query. */
export type InboxAuditQuery = z.infer<typeof inboxAuditQuery>;

/** `GET /api/inbox/audit?session&before&limit&format` (approvers) → `{entries}` or a CSV download. */
export const inboxAuditRoute = defineRoute({
  route: "GET /api/inbox/audit",
  query: inboxAuditQuery,
});
/** Answer of {@link inboxAuditRoute} with `format=json`. */
export interface InboxAuditResponse {
  entries: InboxAuditEntry[];
}

/** Path parameters of `/api/inbox/rules/:id` (400 "rule id must be a positive integer"). */
export const inboxRuleIdParams = idParams("rule");

/** `GET /api/inbox/rules` → every allow/deny rule. */
export const listInboxRulesRoute = defineRoute({ route: "GET /api/inbox/rules" });
/** Answer of {@link listInboxRulesRoute}. */
export interface ListInboxRulesResponse {
  rules: InboxRuleView[];
}

/** `POST /api/inbox/rules` (approvers) → 201 `{rule, decidedItemIds}`. */
export const createInboxRuleRoute = defineRoute({
  route: "POST /api/inbox/rules",
  body: inboxRuleInput,
});

/** `PUT /api/inbox/rules/:id` (approvers) → `{rule, decidedItemIds}`. */
export const changeInboxRuleRoute = defineRoute({
  route: "PUT /api/inbox/rules/:id",
  params: inboxRuleIdParams,
  body: inboxRuleInput,
});

/** `DELETE /api/inbox/rules/:id` (approvers) → 204. */
export const deleteInboxRuleRoute = defineRoute({
  route: "DELETE /api/inbox/rules/:id",
  params: inboxRuleIdParams,
});

/** Answer of {@link decideInboxRoute} (a plan's decision may have no recorded person: null). */
export interface DecideInboxResponse {
  decision: Omit<InboxDecision, "decidedBy"> & { decidedBy: string | null };
}

/** Answer of {@link inboxDecisionRoute}: the item's status, its decision when decided, its expiry. */
export interface InboxDecisionResponse {
  status: string;
  decision: InboxDecision | null;
  expiresAt: string;
}
