// Pitwall agent hooks: Claude Code hook events (stdin JSON of Claude Code 2.1.x hooks:
// session_id, hook_event_name, cwd, tool_name, tool_input, tool_response, …) → Pitwall frames.
// Pure: no I/O; the caller passes the session's state and the clock, and stores the new state.

const SOURCE = "claude-code";
const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const str = (v) => (typeof v === "string" ? v : undefined);

/**
 * Parses a hook's stdin. Unknown fields are ignored; only `session_id` and `hook_event_name`
 * (strings) are required. @returns {{ok: true, event: object} | {ok: false, error: string}}
 */
export function parseHookInput(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: "stdin is not JSON" };
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    return { ok: false, error: "stdin is not a JSON object" };
  if (typeof value.session_id !== "string" || value.session_id === "")
    return { ok: false, error: "no session_id" };
  if (typeof value.hook_event_name !== "string") return { ok: false, error: "no hook_event_name" };
  return { ok: true, event: value };
}

/** One todo item in the wire shape (protocol `todoItem`: unknown fields dropped, lengths capped). */
export function toTodoItem(raw, fallbackId) {
  const o = raw && typeof raw === "object" ? raw : {};
  const item = {
    content: clip(str(o.content) ?? str(o.subject) ?? "", 20_000),
    status: clip(str(o.status) || "pending", 50),
  };
  const id = str(o.id) ?? (typeof o.id === "number" ? String(o.id) : fallbackId);
  if (id) item.id = clip(id, 200);
  if (str(o.priority)) item.priority = clip(o.priority, 50);
  if (str(o.activeForm)) item.activeForm = clip(o.activeForm, 20_000);
  return item;
}

/**
 * Applies a TaskCreate / TaskUpdate call (Claude Code's per-task tools) to the session's task
 * list: create appends `{id, content: subject, status: "pending", activeForm}` (id from the
 * tool's response `task.id`, else the next number); update patches status/subject/activeForm
 * of `taskId`; status `deleted` removes it. @returns the new list.
 */
export function applyTaskTool(tasks, toolName, input, response) {
  const list = tasks.map((t) => ({ ...t }));
  if (toolName === "TaskCreate") {
    const id =
      str(response?.task?.id) ??
      (typeof response?.task?.id === "number" ? String(response.task.id) : String(list.length + 1));
    list.push(
      toTodoItem({
        id,
        content: input.subject ?? input.content ?? input.description,
        status: input.status ?? "pending",
        activeForm: input.activeForm,
      }),
    );
    return list;
  }
  const id =
    str(input.taskId) ?? (typeof input.taskId === "number" ? String(input.taskId) : undefined);
  const i = list.findIndex((t) => t.id === id);
  if (i < 0) return list;
  if (input.status === "deleted") return list.filter((_, j) => j !== i);
  if (str(input.status)) list[i].status = clip(input.status, 50);
  if (str(input.subject)) list[i].content = clip(input.subject, 20_000);
  if (str(input.activeForm)) list[i].activeForm = clip(input.activeForm, 20_000);
  return list;
}

/** Claude Code tools that edit files or run commands (Pitwall decides with lib/plans/work-tools.ts). */
const WORK_TOOLS = new Set(["Bash", "Edit", "Write", "MultiEdit", "NotebookEdit"]);

/**
 * What one hook event means for Pitwall.
 * @param event parsed stdin (parseHookInput)
 * @param state the session's stored state ({seq, tasks, waiting, plans, lastPlan})
 * @param ctx {nowMs, sendPrompts, gitBranch?, taskItems?} (taskItems: the whole Task* list read
 *   from Claude Code's task folder or a TaskList response, see claude-tasks.mjs)
 * @returns {{frames: object[], state: object, planGate: object|null}} frames to deliver, the new
 *   state, and for ExitPlanMode's PermissionRequest the tool input to hold for a decision.
 */
export function claudeActions(event, state, ctx) {
  const session = clip(event.session_id, 200);
  const next = { ...state, tasks: state.tasks ?? [] };
  const frames = [];
  const facts = {};
  if (str(event.cwd)) facts.cwd = clip(event.cwd, 4000);
  if (str(event.model)) facts.model = clip(event.model, 200);
  else if (str(event.model?.id)) facts.model = clip(event.model.id, 200);
  if (ctx.gitBranch) facts.gitBranch = clip(ctx.gitBranch, 500);
  const activity = (stateName, detail, extra = {}) => {
    const frame = {
      v: 1,
      id: `cc:${session}:act:${ctx.nowMs}:${stateName}`,
      type: "session.activity",
      session,
      source: SOURCE,
      state: stateName,
      ts: ctx.nowMs,
      ...facts,
      ...extra,
    };
    if (detail) frame.detail = clip(detail, 2000);
    frames.push(frame);
    next.waiting = stateName === "waiting";
  };
  const todos = (items) => {
    next.seq = (state.seq ?? 0) + 1;
    frames.push({
      v: 1,
      id: `cc:${session}:todos:${next.seq}`,
      type: "session.todos",
      session,
      source: SOURCE,
      seq: next.seq,
      ts: ctx.nowMs,
      items: items.slice(0, 1000),
    });
  };

  let planGate = null;
  switch (event.hook_event_name) {
    case "SessionStart":
      activity("idle", `session ${str(event.source) ?? "started"}`);
      break;
    case "UserPromptSubmit": {
      const title =
        ctx.sendPrompts && str(event.prompt)
          ? clip(event.prompt.split("\n")[0].trim(), 200)
          : undefined;
      activity("working", undefined, title ? { title } : {});
      break;
    }
    case "Stop":
      activity("idle", "turn finished");
      break;
    case "SessionEnd":
      activity("ended", str(event.reason));
      break;
    case "Notification":
      if (event.notification_type === "idle_prompt") activity("idle", str(event.message));
      else activity("waiting", str(event.message) ?? "notification");
      break;
    case "PermissionRequest":
      if (event.tool_name === "ExitPlanMode")
        planGate = event.tool_input && typeof event.tool_input === "object" ? event.tool_input : {};
      else if (event.tool_name === "AskUserQuestion")
        activity(
          "waiting",
          `question: ${str(event.tool_input?.questions?.[0]?.question) ?? "a question"}`,
        );
      else activity("waiting", `permission: ${str(event.tool_name) ?? "a tool"}`);
      break;
    case "PostToolUseFailure":
      // Claude Code 2.1.x: a tool call that failed, or was interrupted (Esc: `is_interrupt`). No
      // Stop hook runs after an interrupt, so this is the event that says the agent stopped and
      // waits for the person; a plain failure after a permission prompt means it was answered.
      if (event.is_interrupt === true)
        activity("idle", `interrupted by the user (${str(event.tool_name) ?? "a tool"})`);
      else if (state.waiting) activity("working");
      break;
    case "StopFailure":
      // The turn ended on an API error (no Stop hook then): the agent waits for the person.
      activity("idle", `turn ended with an error${str(event.error) ? `: ${event.error}` : ""}`);
      break;
    case "PostToolUse": {
      const input =
        event.tool_input && typeof event.tool_input === "object" ? event.tool_input : {};
      // A plan of this session waits for a decision (its gate set lastPlan without a decision):
      // say which tool ran, so Pitwall can flag work done before the decision.
      if (state.lastPlan && !state.lastPlan.decision && WORK_TOOLS.has(event.tool_name))
        activity("working", `ran ${event.tool_name}`, { tool: clip(event.tool_name, 200) });
      else if (state.waiting) activity("working");
      if (event.tool_name === "TodoWrite") {
        const raw = Array.isArray(input.todos)
          ? input.todos
          : Array.isArray(event.tool_response?.newTodos)
            ? event.tool_response.newTodos
            : null;
        if (raw) todos(raw.map((t) => toTodoItem(t)));
      } else if (
        event.tool_name === "TaskCreate" ||
        event.tool_name === "TaskUpdate" ||
        event.tool_name === "TaskList"
      ) {
        // The whole list as Claude Code stored it (ctx.taskItems, read by the caller) when known;
        // else our own copy patched from the call. Unchanged lists (TaskList, or the second of two
        // parallel TaskUpdate hooks that both read the final folder) send nothing.
        // (A TaskList response has no activeForm: keep the one we know.)
        const known = new Map(next.tasks.map((t) => [t.id, t]));
        const withForms = (items) =>
          items.map((t) =>
            t.activeForm || !known.get(t.id)?.activeForm
              ? t
              : { ...t, activeForm: known.get(t.id).activeForm },
          );
        next.tasks = Array.isArray(ctx.taskItems)
          ? withForms(ctx.taskItems)
          : event.tool_name === "TaskList"
            ? next.tasks
            : applyTaskTool(next.tasks, event.tool_name, input, event.tool_response);
        const key = JSON.stringify(next.tasks);
        if (key !== state.lastTasksJson) {
          next.lastTasksJson = key;
          todos(next.tasks);
        }
      }
      break;
    }
    default:
      // PreToolUse and events of future versions: nothing to report.
      break;
  }
  return { frames, state: next, planGate };
}
