/** Types of permission.mjs (plain JS so hooks run without a TypeScript loader). */
export interface InboxDecision {
  decision: "allow" | "deny";
  message: string | null;
  editedInput: Record<string, unknown> | null;
  decidedBy: string;
}
/** One-line summary and, for file edits, a diff of a tool call. */
export function describeToolCall(
  toolName: string,
  input: unknown,
): { summary: string; diff?: string };
/** Claude Code's PermissionRequest hook output for a decision; null = no answer (the terminal asks). */
export function permissionAnswer(
  decision: InboxDecision | null,
  toolInput: unknown,
): {
  hookSpecificOutput: { hookEventName: "PermissionRequest"; decision: Record<string, unknown> };
} | null;
/** Fingerprint of one tool call (tool + input). */
export function callFingerprint(toolName: string, input: unknown): string;
/** Stops the session's permission gates an event shows were answered in the terminal. */
export function stopStalePermissionGates(
  cfg: { stateDir: string },
  event: Record<string, unknown>,
  stop: (pid: number) => unknown,
): void;
/** Opens an inbox item for a PermissionRequest and waits for the decision; null when there is none. */
export function requestPermission(
  cfg: unknown,
  event: Record<string, unknown>,
  opts?: {
    agent?: string;
    gitBranch?: string;
    sleep?: (ms: number) => Promise<void>;
    now?: () => number;
  },
): Promise<InboxDecision | null>;
