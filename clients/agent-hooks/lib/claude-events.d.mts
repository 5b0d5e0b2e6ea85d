/** Types of claude-events.mjs (plain JS so hooks run without a TypeScript loader). */
export interface WireTodoItem {
  id?: string;
  content: string;
  status: string;
  priority?: string;
  activeForm?: string;
}
export interface HookSessionState {
  seq: number;
  tasks: WireTodoItem[];
  waiting: boolean;
  plans: number;
  lastPlan: { key: string; decision: string | null } | null;
  /** JSON of the Task* list last sent (an unchanged list is not sent again). */
  lastTasksJson?: string;
}
/** Parses a Claude Code hook's stdin; only session_id and hook_event_name are required. */
export function parseHookInput(
  text: string,
):
  | { ok: true; event: Record<string, unknown> & { session_id: string; hook_event_name: string } }
  | { ok: false; error: string };
/** One todo item in the wire shape (unknown fields dropped, lengths capped). */
export function toTodoItem(raw: unknown, fallbackId?: string): WireTodoItem;
/** Applies a TaskCreate / TaskUpdate call to the session's task list. */
export function applyTaskTool(
  tasks: WireTodoItem[],
  toolName: string,
  input: Record<string, unknown>,
  response: unknown,
): WireTodoItem[];
/** Frames, new state and plan gate for one hook event. */
export function claudeActions(
  event: Record<string, unknown> & { session_id: string; hook_event_name: string },
  state: HookSessionState,
  ctx: {
    nowMs: number;
    sendPrompts: boolean;
    gitBranch?: string;
    taskItems?: WireTodoItem[] | null;
  },
): {
  frames: Array<Record<string, unknown>>;
  state: HookSessionState;
  planGate: Record<string, unknown> | null;
};
