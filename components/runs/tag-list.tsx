import Link from "next/link";

import { Badge } from "@/components/ui/badge";
import { runsPath } from "@/lib/paths";

/** Tags as small outline badges linking to the run list filtered by that tag. */
export function TagList({
  tags,
  max = 6,
  nowrap = false,
}: {
  tags: readonly string[];
  max?: number;
  nowrap?: boolean;
}) {
  if (tags.length === 0) return null;
  const shown = tags.slice(0, max);
  return (
    <span
      className={
        nowrap ? "inline-flex items-center gap-1" : "inline-flex flex-wrap items-center gap-1"
      }
    >
      {shown.map((t) => (
        <Link key={t} href={runsPath({ tag: t })} className="rounded-md" title={`Runs tagged ${t}`}>
          <Badge tone="outline" className="hover:bg-muted hover:text-foreground">
            {t}
          </Badge>
        </Link>
      ))}
      {tags.length > max && <span className="text-xs text-muted-fg">+{tags.length - max}</span>}
    </span>
  );
}
