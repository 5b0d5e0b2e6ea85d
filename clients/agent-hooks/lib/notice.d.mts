/** Types of notice.mjs (plain JS so hooks run without a TypeScript loader). */
/** The POST /api/inbox body of a "waiting for your input" notice, or null. */
export function noticeFor(
  event: Record<string, unknown>,
  opts?: { nowMs?: number; gitBranch?: string },
): Record<string, unknown> | null;
/** Opens the notice of a Notification event in Pitwall; true when stored. Never throws. */
export function openNotice(
  cfg: { url?: string; token?: string; permissionSendTimeoutMs?: number },
  event: Record<string, unknown>,
  opts?: { nowMs?: number; gitBranch?: string },
): Promise<boolean>;
