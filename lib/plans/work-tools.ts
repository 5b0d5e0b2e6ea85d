/**
 * Tools that change the world outside the conversation: they edit files or run commands. Running
 * one while a plan waits for a decision is "working without approval". Names as Claude Code
 * (2.1.x: Bash, Edit, Write, MultiEdit, NotebookEdit) and opencode (1.x: bash, edit, write, patch,
 * multiedit) call them; compared case-insensitively. MCP tools are not counted (what they do is
 * unknown).
 */
const WORK_TOOLS = new Set([
  "bash",
  "edit",
  "write",
  "multiedit",
  "notebookedit",
  "patch",
  "apply_patch",
]);

/** True when `tool` edits files or runs commands (see {@link WORK_TOOLS}). */
export function isWorkTool(tool: string): boolean {
  return WORK_TOOLS.has(tool.trim().toLowerCase());
}
