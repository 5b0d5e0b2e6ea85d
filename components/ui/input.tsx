import type { InputHTMLAttributes, SelectHTMLAttributes } from "react";

import { cn } from "@/lib/utils";

const field =
  "h-8 rounded-md border border-input bg-card px-2.5 text-sm text-foreground shadow-xs placeholder:text-muted-fg/70 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:opacity-50";

/** A text input. */
export function Input({ className, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={cn(field, className)} {...props} />;
}

/** A native select, styled like the inputs (keyboard and screen-reader behaviour for free). */
export function Select({ className, ...props }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={cn(field, "pr-7", className)} {...props} />;
}
