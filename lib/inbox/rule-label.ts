/** How an inbox rule reads, shared by the server (audit) and the /inbox page. No dependencies. */

/** How a rule reads: `allow Bash(pytest *) in pitwall`, `deny Bash(rm -rf *) everywhere (claude-code)`. */
export function ruleLabel(rule: {
  effect: string;
  agent: string;
  project: string | null;
  tool: string;
  pattern: string;
}): string {
  const where = rule.project === null ? "everywhere" : `in ${rule.project}`;
  return `${rule.effect} ${rule.tool}(${rule.pattern}) ${where}${rule.agent === "any" ? "" : ` (${rule.agent})`}`;
}
