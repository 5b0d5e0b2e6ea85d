import { ArrowDown, ArrowUp } from "lucide-react";

import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";

/** An item's priority ("high" with an up arrow, "low" with a down arrow, anything else as written); nothing when absent. */
export function PriorityBadge({
  priority,
  className,
}: {
  priority: string | null | undefined;
  className?: string;
}) {
  if (!priority) return null;
  return (
    <Badge
      tone="outline"
      className={cn(
        "h-4 gap-0.5 px-1 text-[11px] [&_svg]:size-3",
        priority === "high" && "border-foreground/30 font-medium text-foreground",
        className,
      )}
      title={`Priority: ${priority}`}
    >
      {priority === "high" && <ArrowUp aria-hidden />}
      {priority === "low" && <ArrowDown aria-hidden />}
      {priority}
    </Badge>
  );
}
