import Link from "next/link";

import { runPath } from "@/lib/paths";

/** A run's name linked to its page, after a dot of its legend `color` (compare-page tables). */
export function RunColorLink({ run, color }: { run: { id: number; name: string }; color: string }) {
  return (
    <span className="flex min-w-0 items-center gap-2">
      <span aria-hidden className="size-2.5 shrink-0 rounded-full" style={{ background: color }} />
      <Link
        href={runPath(run.id)}
        className="truncate rounded-sm font-medium hover:underline"
        title={run.name}
      >
        {run.name}
      </Link>
    </span>
  );
}
