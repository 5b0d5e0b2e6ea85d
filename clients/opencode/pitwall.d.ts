/** Types of pitwall.js (plain JS: opencode loads it as a plugin, without a TypeScript step). */
export interface OpencodeTodoItem {
  id?: string;
  content: string;
  status: string;
  priority?: string;
}
/** One opencode todo in the wire shape (unknown fields dropped, lengths capped). */
export function toTodoItem(todo: unknown): OpencodeTodoItem;
/** Frames for one opencode bus event and the session's new state; null when the event is not ours. */
export function opencodeEventFrames(
  event: { type?: string; properties?: Record<string, unknown> } | null | undefined,
  state: Record<string, unknown>,
  nowMs: number,
  facts?: Record<string, unknown>,
): { frames: Array<Record<string, unknown>>; state: Record<string, unknown> } | null;
/**
 * The `session.activity` frame (with `tool`) for a tool run while the session's plan waits for a
 * decision; null for tools that neither edit nor run commands, or when no plan waits.
 */
export function toolActivityFrame(
  input: { tool?: unknown; sessionID?: unknown } | null | undefined,
  state: Record<string, unknown> & { lastPlan?: { key: string; decision: string | null } },
  nowMs: number,
  facts?: Record<string, unknown>,
): Record<string, unknown> | null;
/** The opencode plugin: the `event` hook and, when zod resolves, the `pitwall_propose_plan` tool. */
export const PitwallPlugin: (ctx: { directory?: string; client?: unknown }) => Promise<{
  event: (input: { event: unknown }) => Promise<void>;
  "tool.execute.after"?: (input: {
    tool: string;
    sessionID: string;
    callID?: string;
  }) => Promise<void>;
  tool?: {
    pitwall_propose_plan: {
      description: string;
      args: Record<string, unknown>;
      execute: (args: { plan: string }, context: { sessionID?: string }) => Promise<string>;
    };
  };
}>;
