import type { ComponentType } from "react";

import { PendingPlansBadge } from "@/components/plans/pending-plans-badge";

/** A navigation entry of the sessions and plans section; `Badge` renders after the label (client component). */
export interface SessionNavItem {
  href: string;
  label: string;
  Badge?: ComponentType;
}

/**
 * Navigation entries for agent sessions and plans: "Sessions", and "Plans" with the live count of
 * plans awaiting a decision (a small pill, hidden at 0). Wire into components/nav/nav-links.tsx
 * after the existing links: `{l.label}{l.Badge && <l.Badge />}` inside each link.
 */
export const SESSION_NAV_ITEMS: readonly SessionNavItem[] = [
  { href: "/sessions", label: "Sessions" },
  { href: "/plans", label: "Plans", Badge: PendingPlansBadge },
];
