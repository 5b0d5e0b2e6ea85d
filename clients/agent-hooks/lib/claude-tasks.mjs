// Pitwall agent hooks: Claude Code's task list (TaskCreate / TaskUpdate / TaskList, the todo
// tools of Claude Code 2.1.332 with its default settings; TodoWrite only with
// CLAUDE_CODE_ENABLE_TODO_TOOLS=1 CLAUDE_CODE_ENABLE_TASKS=0). Claude Code keeps the list as one
// file per task, `<config dir>/tasks/<task list id>/<id>.json` ({id, subject, description,
// activeForm, status, blocks, blockedBy}; a deleted task's file is removed), written before the
// tool's PostToolUse hook runs. Reading that folder gives the whole list, whatever order parallel
// TaskUpdate hooks run in; when it cannot be read the hook falls back to patching its own copy
// from the tool inputs and responses (claude-events.mjs applyTaskTool).
import fs from "node:fs";
import path from "node:path";

import { toTodoItem } from "./claude-events.mjs";

/** Claude Code tools that change or show the task list (TaskGet and TaskStop do not). */
export const TASK_TOOLS = new Set(["TaskCreate", "TaskUpdate", "TaskList"]);

/**
 * The folder holding the session's task files, or null when unknown. The config dir is taken
 * from `transcript_path` (`<config dir>/projects/<project>/<session>.jsonl`, so CLAUDE_CONFIG_DIR
 * is followed), else $CLAUDE_CONFIG_DIR, else $HOME/.claude; the list id is
 * $CLAUDE_CODE_TASK_LIST_ID (a shared team list) or the session id.
 */
export function taskDirOf(event, env = process.env) {
  const session = typeof event.session_id === "string" ? event.session_id : "";
  const listId = env.CLAUDE_CODE_TASK_LIST_ID || session;
  if (!listId || /[/\\]|^\.\.?$/.test(listId)) return null;
  const transcript = typeof event.transcript_path === "string" ? event.transcript_path : "";
  const configDir =
    transcript && path.basename(path.dirname(path.dirname(transcript))) === "projects"
      ? path.dirname(path.dirname(path.dirname(transcript)))
      : env.CLAUDE_CONFIG_DIR || (env.HOME ? path.join(env.HOME, ".claude") : "");
  return configDir ? path.join(configDir, "tasks", listId) : null;
}

/**
 * The task list in `dir` as wire todo items, ordered by task id (numeric ids numerically), or null
 * when the folder cannot be read. Files that do not parse (a write in progress) are skipped.
 */
export function readTaskDir(dir) {
  let names;
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return null;
  }
  const tasks = [];
  for (const name of names) {
    try {
      const t = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
      if (t && typeof t === "object") tasks.push(t);
    } catch {
      // half-written or removed meanwhile: the next Task* call sends it
    }
  }
  const key = (t) => String(t.id ?? "");
  tasks.sort((a, b) => {
    const na = Number(key(a));
    const nb = Number(key(b));
    return Number.isFinite(na) && Number.isFinite(nb) ? na - nb : key(a).localeCompare(key(b));
  });
  return tasks.map((t) =>
    toTodoItem({
      id: key(t) || undefined,
      subject: t.subject,
      status: t.status,
      activeForm: t.activeForm,
    }),
  );
}

/** A TaskList tool response's tasks as wire todo items (the whole list), or null when it has none. */
export function itemsFromTaskList(response) {
  const tasks =
    response && typeof response === "object" && Array.isArray(response.tasks)
      ? response.tasks
      : null;
  return tasks ? tasks.map((t) => toTodoItem(t)) : null;
}

/**
 * For a PostToolUse of a Task* tool: the session's whole task list (the task folder, else a
 * TaskList response), or undefined for other events and when neither can be read.
 */
export function taskItemsFor(event, env = process.env) {
  if (event.hook_event_name !== "PostToolUse" || !TASK_TOOLS.has(event.tool_name)) return undefined;
  const dir = taskDirOf(event, env);
  const fromDir = dir ? readTaskDir(dir) : null;
  if (fromDir) return fromDir;
  return event.tool_name === "TaskList"
    ? (itemsFromTaskList(event.tool_response) ?? undefined)
    : undefined;
}
