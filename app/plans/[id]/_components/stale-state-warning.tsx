import { TriangleAlert } from "lucide-react";
import Link from "next/link";

import { runPath } from "@/lib/paths";
import type { RunState } from "@/lib/view-models";
import type { PlanRunView } from "@/lib/view-models/plans";

/** "Based on stale state": the run this plan was written against is not in that state any more. */
export function StaleStateWarning({
  atProposal,
  run,
  runNow,
}: {
  atProposal: string;
  run: PlanRunView | null;
  runNow: RunState | null;
}) {
  return (
    <div
      role="alert"
      className="flex items-start gap-3 rounded-lg border border-stale/50 bg-stale-bg px-4 py-3 text-stale"
    >
      <TriangleAlert aria-hidden className="mt-0.5 size-5 shrink-0" />
      <div className="grid gap-0.5 text-sm">
        <p className="font-semibold">Based on stale state</p>
        <p>
          {run ? (
            <>
              When this plan was proposed, run{" "}
              <Link href={runPath(run.id)} className="font-medium underline underline-offset-2">
                {run.name}
              </Link>{" "}
              was <strong>{atProposal}</strong>; it is <strong>{runNow}</strong> now.
            </>
          ) : (
            <>
              When this plan was proposed, its run was <strong>{atProposal}</strong>; that run no
              longer exists.
            </>
          )}{" "}
          Check the run before approving: the steps may no longer fit.
        </p>
      </div>
    </div>
  );
}
