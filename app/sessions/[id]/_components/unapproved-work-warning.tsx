import { ShieldAlert } from "lucide-react";
import Link from "next/link";

import { RelativeTime } from "@/components/runs/relative-time";
import { planPath } from "@/lib/paths";
import type { UnapprovedWorkView } from "@/lib/view-models/sessions";

/**
 * "Worked without approval": the tools that edited files or ran commands while one of the
 * session's plans waited for a decision, each with its plan and time. Nothing when there are none.
 */
export function UnapprovedWorkWarning({ work }: { work: readonly UnapprovedWorkView[] }) {
  if (work.length === 0) return null;
  return (
    <div
      role="alert"
      data-testid="worked-without-approval"
      className="flex items-start gap-3 rounded-lg border border-failed/50 bg-failed-bg px-4 py-3 text-failed"
    >
      <ShieldAlert aria-hidden className="mt-0.5 size-5 shrink-0" />
      <div className="grid min-w-0 gap-1 text-sm">
        <p className="font-semibold">Worked without approval</p>
        <p>
          The agent edited files or ran commands after proposing a plan and before anyone decided on
          it:
        </p>
        <ul className="grid gap-0.5 text-[13px]">
          {work.map((w, i) => (
            <li key={i} className="min-w-0 break-words">
              <span className="font-mono">{w.tool}</span>
              {w.detail && <span> ({w.detail})</span>} <RelativeTime iso={w.at} /> while{" "}
              <Link href={planPath(w.planId)} className="font-medium underline underline-offset-2">
                {w.planTitle}
              </Link>{" "}
              waited
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
