import { ArrowUpDown, Minus, Pencil, Plus } from "lucide-react";

import { PriorityBadge } from "@/components/sessions/priority-badge";
import type { PlanItemsDiff } from "@/lib/view-models/plans";

/**
 * The items as decided against the proposal: each decided item numbered, marked added / edited
 * (with the proposed text struck through) / moved / priority changed, then the removed ones.
 */
export function PlanItemsDiffView({ diff }: { diff: PlanItemsDiff }) {
  if (diff.unchanged) return <p className="text-xs text-muted-fg">Items as proposed.</p>;
  return (
    <ol
      aria-label="Decided items against the proposal"
      className="grid gap-1 text-[13px] leading-5"
    >
      {diff.items.map((c, i) => (
        <li key={i} className="flex items-start gap-2">
          <span className="mt-px w-5 shrink-0 text-right text-xs text-muted-fg tabular-nums">
            {i + 1}.
          </span>
          <span className="mt-0.5 shrink-0">
            {c.change === "added" ? (
              <Plus aria-hidden className="size-3.5 text-succeeded" />
            ) : c.change === "edited" ? (
              <Pencil aria-hidden className="size-3.5 text-running" />
            ) : c.moved ? (
              <ArrowUpDown aria-hidden className="size-3.5 text-muted-fg" />
            ) : (
              <span aria-hidden className="block size-3.5" />
            )}
          </span>
          <span className="min-w-0 flex-1 break-words whitespace-pre-wrap">
            {c.change === "edited" && c.fromContent !== null && (
              <>
                <del className="text-muted-fg">{c.fromContent}</del>
                <span className="text-muted-fg"> → </span>
              </>
            )}
            {c.change === "added" ? (
              <ins className="no-underline">{c.item.content}</ins>
            ) : (
              c.item.content
            )}
            <span className="ml-1.5 text-xs text-muted-fg">
              {c.change === "added" && "added"}
              {c.change === "edited" && "edited"}
              {c.moved &&
                c.fromPosition !== null &&
                `${c.change === "edited" ? ", " : ""}moved from ${c.fromPosition}`}
              {c.fromPriority !== undefined &&
                `${c.change !== "same" || c.moved ? ", " : ""}priority ${c.fromPriority ?? "none"} → ${c.item.priority ?? "none"}`}
            </span>
          </span>
          <PriorityBadge priority={c.item.priority} className="mt-0.5 shrink-0" />
        </li>
      ))}
      {diff.removed.map((r, i) => (
        <li key={`r${i}`} className="flex items-start gap-2 text-muted-fg">
          <span className="mt-px w-5 shrink-0" />
          <Minus aria-hidden className="mt-0.5 size-3.5 shrink-0 text-failed" />
          <span className="min-w-0 flex-1 break-words whitespace-pre-wrap">
            <del>{r.item.content}</del>
            <span className="ml-1.5 text-xs">removed (was {r.position})</span>
          </span>
        </li>
      ))}
    </ol>
  );
}
