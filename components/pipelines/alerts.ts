/** Human titles of server alert codes (RunEvent.code, Run.activeAlerts). */
const ALERT_TITLES: Record<string, string> = {
  deleted_before_upload: "Deleted locally but never uploaded",
  deleted_before_upload_resolved: "Upload alert resolved",
  step_overflow: "Step counter overflow",
};

/**
 * Title of an alert code: "Deleted locally but never uploaded"; a rule's code `alert_rule_<id>`
 * reads as the rule's name (`ruleNames`: id → name, from GET /api/alert-rules), or "Alert rule
 * #<id>" when the name is not known (not loaded yet, or the rule was deleted). Unknown codes are
 * shown as sent, underscores as spaces.
 */
export function alertTitle(code: string, ruleNames?: ReadonlyMap<number, string>): string {
  const rule = /^alert_rule_(\d+)(_resolved)?$/.exec(code);
  if (rule) {
    const name = ruleNames?.get(Number(rule[1]));
    const title = name ? `Alert “${name}”` : `Alert rule #${rule[1]}`;
    return `${title}${rule[2] ? " resolved" : ""}`;
  }
  return ALERT_TITLES[code] ?? code.replace(/_/g, " ");
}

/** True for codes that clear an earlier alert (shown as good news, not as an alert). */
export function isResolution(code: string | null): boolean {
  return code !== null && code.endsWith("_resolved");
}
