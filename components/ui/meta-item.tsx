import type { ReactNode } from "react";

/** One "label value" pair of a page header's metadata line (inside a `<dl>`). */
export function MetaItem({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-center gap-1.5">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
