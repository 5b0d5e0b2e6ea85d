/** Types of claude-tasks.mjs (plain JS so hooks run without a TypeScript loader). */
import type { WireTodoItem } from "./claude-events.mjs";

/** Claude Code tools that change or show the task list. */
export const TASK_TOOLS: Set<string>;
/** The folder holding the session's task files (`<config dir>/tasks/<list id>`), or null. */
export function taskDirOf(
  event: Record<string, unknown>,
  env?: Record<string, string | undefined>,
): string | null;
/** The task list in `dir` as wire todo items ordered by id, or null when unreadable. */
export function readTaskDir(dir: string): WireTodoItem[] | null;
/** A TaskList response's tasks as wire todo items, or null. */
export function itemsFromTaskList(response: unknown): WireTodoItem[] | null;
/** For a PostToolUse of a Task* tool: the whole task list (task folder, else TaskList response), else undefined. */
export function taskItemsFor(
  event: Record<string, unknown>,
  env?: Record<string, string | undefined>,
): WireTodoItem[] | undefined;
