// Pitwall agent hooks: the Claude Code PermissionRequest gate (any tool but ExitPlanMode):
// asks Pitwall's inbox and prints the decision in Claude Code's hook output format, or nothing
// (the terminal asks) when there is no decision. Never approves by default.
import { gitBranch } from "./git.mjs";
import { permissionAnswer, requestPermission } from "./permission.mjs";

export { stopStalePermissionGates } from "./permission.mjs";

/** Holds Claude Code's PermissionRequest `event` until a person decides in Pitwall; prints the answer (or nothing). */
export async function permissionGate(cfg, event, out = (text) => process.stdout.write(text)) {
  const branch = typeof event.cwd === "string" ? gitBranch(event.cwd) : undefined;
  const decision = await requestPermission(cfg, event, { gitBranch: branch });
  const answer = permissionAnswer(decision, event.tool_input);
  if (answer) out(JSON.stringify(answer));
  else process.stderr.write("pitwall hook: no decision in Pitwall; asking in the terminal\n");
}
