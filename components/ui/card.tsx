import type { HTMLAttributes } from "react";

import { cn } from "@/lib/utils";

/** A bordered surface. `min-w-0`: as a grid or flex item it never grows past its track to fit a wide table (the table scrolls inside). */
export function Card({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return (
    <div
      className={cn("min-w-0 rounded-lg border border-border bg-card shadow-xs", className)}
      {...props}
    />
  );
}

/** Card title row (title left, actions right). */
export function CardHeader({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return (
    <div
      className={cn("flex min-h-10 items-center gap-3 border-b border-border px-4 py-2", className)}
      {...props}
    />
  );
}

/** Card title; phrase it as what the card answers ("Output tok/s by concurrency"). */
export function CardTitle({ className, ...props }: HTMLAttributes<HTMLHeadingElement>) {
  return <h2 className={cn("text-sm leading-5 font-semibold", className)} {...props} />;
}

/** Secondary text next to a card title. */
export function CardDescription({ className, ...props }: HTMLAttributes<HTMLParagraphElement>) {
  return <p className={cn("text-xs text-muted-fg", className)} {...props} />;
}

/** Card body. */
export function CardContent({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("p-4", className)} {...props} />;
}
