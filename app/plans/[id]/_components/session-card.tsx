import Link from "next/link";

import { RelativeTime } from "@/components/runs/relative-time";
import { SessionSourceLabel } from "@/components/sessions/session-source";
import { TodoProgress } from "@/components/sessions/todo-progress";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { sessionPath } from "@/lib/paths";
import type { PlanDetailView } from "@/lib/view-models/plans";

/** The plan's linked agent session now: title, todo progress, the item in progress and the last todo write. */
export function SessionCard({ plan }: { plan: PlanDetailView }) {
  const s = plan.sessionDetail;
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>Agent session</CardTitle>
        {s && <SessionSourceLabel source={s.source} className="ml-auto text-xs text-muted-fg" />}
      </CardHeader>
      <CardContent className="grid gap-2 text-[13px]">
        {s ? (
          <>
            <div className="flex min-w-0 items-center gap-2">
              <Link
                href={sessionPath(s.id)}
                className="min-w-0 truncate rounded-sm font-medium hover:underline"
                title={s.title ?? s.key}
              >
                {s.title ?? s.key}
              </Link>
              <TodoProgress progress={s.progress} className="ml-auto shrink-0 text-xs" />
            </div>
            {s.current && (
              <p className="flex min-w-0 items-center gap-1.5 text-xs" title={s.current.content}>
                <span aria-hidden className="size-1.5 shrink-0 rounded-full bg-running" />
                <span className="min-w-0 truncate text-running max-md:break-words max-md:whitespace-normal">
                  {s.current.activeForm ?? s.current.content}
                </span>
              </p>
            )}
            <p className="text-xs text-muted-fg">
              last todo write <RelativeTime iso={s.lastUpdateAt} />
            </p>
          </>
        ) : (
          <p className="text-muted-fg">
            No session linked. Agents link theirs with &quot;session&quot;: &quot;&lt;session
            key&gt;&quot; in plan.json.
          </p>
        )}
      </CardContent>
    </Card>
  );
}
