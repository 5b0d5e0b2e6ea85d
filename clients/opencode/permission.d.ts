/** Types of permission.js (plain JS: opencode loads the plugin without a TypeScript step). */
import type { InboxDecision } from "../agent-hooks/lib/permission.mjs";

/** What a person sees of an opencode `permission.asked` request. */
export function describeOpencodePermission(properties: unknown): {
  toolName: string;
  summary: string;
  input: Record<string, unknown>;
  diff?: string;
};
/** opencode's POST /permission/:id/reply body for a decision; null = no reply. */
export function opencodeReply(
  decision: InboxDecision | null,
): { reply: "once" | "reject"; message?: string } | null;
/** Handles permission.asked / permission.replied events; true when the event was one of these. */
export function opencodePermissionHandler(
  cfg: unknown,
  opts: {
    client: unknown;
    directory?: string;
    gitBranch?: string;
    warn: (line: string) => void;
  },
): (event: { type?: string; properties?: Record<string, unknown> }) => boolean;
