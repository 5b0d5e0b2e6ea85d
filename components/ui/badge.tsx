import { cva, type VariantProps } from "class-variance-authority";
import type { HTMLAttributes } from "react";

import { cn } from "@/lib/utils";

/** Badge colours: the status palette plus a neutral outline for tags. */
export const badgeVariants = cva(
  "inline-flex h-5 items-center gap-1 rounded-md px-1.5 text-xs font-medium whitespace-nowrap [&_svg]:size-3.5 [&_svg]:shrink-0",
  {
    variants: {
      tone: {
        running: "bg-running-bg text-running",
        succeeded: "bg-succeeded-bg text-succeeded",
        failed: "bg-failed-bg text-failed",
        stale: "bg-stale-bg text-stale",
        neutral: "bg-neutral-bg text-neutral",
        outline: "border border-border bg-transparent font-normal text-muted-fg",
      },
    },
    defaultVariants: { tone: "neutral" },
  },
);

/** A small label; pair colour with an icon or text, never colour alone. */
export function Badge({
  className,
  tone,
  ...props
}: HTMLAttributes<HTMLSpanElement> & VariantProps<typeof badgeVariants>) {
  return <span className={cn(badgeVariants({ tone }), className)} {...props} />;
}
