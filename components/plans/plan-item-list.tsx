import { PriorityBadge } from "@/components/sessions/priority-badge";
import type { PlanItemView } from "@/lib/view-models/plans";

/** A plan's items, numbered, with their priority; text keeps the author's line breaks. */
export function PlanItemList({ items, label }: { items: readonly PlanItemView[]; label: string }) {
  return (
    <ol aria-label={label} className="divide-y divide-border">
      {items.map((item, i) => (
        <li key={i} className="flex items-start gap-3 px-4 py-2">
          <span className="mt-px w-5 shrink-0 text-right text-xs text-muted-fg tabular-nums">
            {i + 1}.
          </span>
          <span className="min-w-0 flex-1 text-[13px] leading-5 break-words whitespace-pre-wrap">
            {item.content}
          </span>
          <PriorityBadge priority={item.priority} className="mt-0.5 shrink-0" />
        </li>
      ))}
    </ol>
  );
}
