/** Human titles of server alert codes (RunEvent.code, Run.activeAlerts). */
const ALERT_TITLES: Record<string, string> = {
  deleted_before_upload: "Deleted locally but never uploaded",
  deleted_before_upload_resolved: "Upload alert resolved",
  step_overflow: "Step counter overflow",
};

/** Title of an alert code: "Deleted locally but never uploaded"; unknown codes are shown as sent. */
export function alertTitle(code: string): string {
  const rule = /^alert_rule_(\d+)(_resolved)?$/.exec(code);
  if (rule) return `Alert rule #${rule[1]}${rule[2] ? " resolved" : ""}`;
  return ALERT_TITLES[code] ?? code.replace(/_/g, " ");
}

/** True for codes that clear an earlier alert (shown as good news, not as an alert). */
export function isResolution(code: string | null): boolean {
  return code !== null && code.endsWith("_resolved");
}
