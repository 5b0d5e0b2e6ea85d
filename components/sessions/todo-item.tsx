import { Scissors } from "lucide-react";
import type { ReactNode } from "react";

import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";
import type { TodoItemView } from "@/lib/view-models/sessions";

import { PriorityBadge } from "./priority-badge";
import { TodoStatusIcon } from "./todo-status";

/** "truncated": the text looks cut off by a length limit somewhere between the agent and Pitwall. */
export function TruncatedMarker() {
  return (
    <Badge
      tone="outline"
      className="ml-1.5 h-4 translate-y-[-1px] gap-0.5 px-1 align-middle text-[11px] [&_svg]:size-3"
      title="This text looks cut off: its length is a typical length limit"
    >
      <Scissors aria-hidden />
      truncated
    </Badge>
  );
}

/**
 * An item's text with the truncation marker; by its status (unless `plain`): struck through when
 * cancelled, muted when completed.
 */
export function TodoContent({
  item,
  className,
  plain = false,
}: {
  item: Pick<TodoItemView, "content" | "status" | "truncated">;
  className?: string;
  plain?: boolean;
}) {
  return (
    <span
      className={cn(
        "break-words",
        !plain && item.status === "completed" && "text-muted-fg",
        !plain && item.status === "cancelled" && "text-muted-fg line-through",
        className,
      )}
    >
      {item.content}
      {item.truncated && <TruncatedMarker />}
    </span>
  );
}

/**
 * One line of a todo list: status icon, text (with the activeForm under an in-progress item),
 * priority; `aside` goes on the right (time in status), `highlight` marks a stuck item.
 */
export function TodoItemLine({
  item,
  aside,
  highlight,
  note,
}: {
  item: TodoItemView;
  aside?: ReactNode;
  highlight?: boolean;
  note?: ReactNode;
}) {
  return (
    <li
      className={cn(
        "flex items-start gap-2.5 px-4 py-2",
        highlight && "bg-stale-bg/60 shadow-[inset_3px_0_0_var(--status-stale)]",
      )}
    >
      <TodoStatusIcon status={item.status} className="mt-0.5 shrink-0" />
      <div className="min-w-0 flex-1">
        <p className="text-[13px] leading-5">
          <TodoContent item={item} />
        </p>
        {item.activeForm && item.status === "in_progress" && (
          <p className="text-xs leading-5 text-running">{item.activeForm}</p>
        )}
        {note}
      </div>
      <div className="flex shrink-0 items-center gap-2 pt-0.5">
        <PriorityBadge priority={item.priority} />
        {aside}
      </div>
    </li>
  );
}
