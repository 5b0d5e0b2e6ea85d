import type { HTMLAttributes, TdHTMLAttributes, ThHTMLAttributes } from "react";

import { cn } from "@/lib/utils";

/**
 * A dense data table in a horizontally scrollable frame; numbers use tabular figures. The frame
 * is a keyboard-focusable region (arrow keys scroll it) named by `label` (default "Table"), with
 * edge shadows while there is more to scroll to (`.scroll-x` in app/globals.css).
 */
export function Table({
  className,
  containerClassName,
  label = "Table",
  ...props
}: HTMLAttributes<HTMLTableElement> & { containerClassName?: string; label?: string }) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className={cn("scroll-x relative w-full", containerClassName)}
    >
      <table
        className={cn("w-full caption-bottom border-collapse text-[13px] tabular-nums", className)}
        {...props}
      />
    </div>
  );
}

/** Table head. */
export function TableHeader({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  return <thead className={cn("[&_tr]:border-b [&_tr]:border-border", className)} {...props} />;
}

/** Table body. */
export function TableBody({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  return <tbody className={cn("[&_tr:last-child]:border-0", className)} {...props} />;
}

/** Table row with hover highlight. */
export function TableRow({ className, ...props }: HTMLAttributes<HTMLTableRowElement>) {
  return (
    <tr
      className={cn(
        "border-b border-border transition-colors hover:bg-muted/50 data-[state=selected]:bg-muted",
        className,
      )}
      {...props}
    />
  );
}

/** Header cell. */
export function TableHead({ className, ...props }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      className={cn(
        "h-8 px-2.5 text-left align-middle text-xs font-medium whitespace-nowrap text-muted-fg first:pl-4 last:pr-4",
        className,
      )}
      {...props}
    />
  );
}

/** Body cell. */
export function TableCell({ className, ...props }: TdHTMLAttributes<HTMLTableCellElement>) {
  return (
    <td
      className={cn("h-9 px-2.5 align-middle whitespace-nowrap first:pl-4 last:pr-4", className)}
      {...props}
    />
  );
}
